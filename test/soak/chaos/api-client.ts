import { randomUUID } from 'node:crypto';

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP answer as the load saw it: every 5xx is judged afterwards against the faults. */
export interface AnswerRecord {
  at: number;
  status: number;
  code?: string;
  method: string;
  path: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The merchant's client in front of the two API processes, as a load balancer with retries
 * would be: a refused connection goes to the other process, a 503 is retried after a second
 * with the same Idempotency-Key (so a retried write happens once). Every answer is recorded.
 */
export class ApiClient {
  readonly answers: AnswerRecord[] = [];
  connectionErrors = 0;
  private next = 0;

  constructor(
    private readonly ports: number[],
    private readonly apiKey: string,
  ) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    options: { idempotent?: boolean; giveUpMs?: number } = {},
  ): Promise<Answer> {
    const key = method === 'POST' && options.idempotent !== false ? randomUUID() : undefined;
    const deadline = Date.now() + (options.giveUpMs ?? 180_000);
    for (;;) {
      const port = this.ports[this.next++ % this.ports.length];
      let answer: Answer | undefined;
      try {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.apiKey}`,
            'content-type': 'application/json',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // A non-JSON body stays text (it is recorded as is).
        }
        answer = { status: response.status, body: parsed };
        this.answers.push({
          at: Date.now(),
          status: response.status,
          code: (parsed as { error?: { code?: string } })?.error?.code,
          method,
          path: path.replace(/[a-z]+_[A-Za-z0-9]{8,}/g, ':id'),
        });
      } catch {
        // Refused or cut (a killed API process): the other process gets the retry.
        this.connectionErrors++;
      }
      // 409 idempotency_in_progress: the first try (cut by a kill) is still running or its lock
      // not yet released; the same key is retried like a 503.
      const inProgress = answer?.body?.error?.code === 'idempotency_in_progress';
      if (answer && answer.status !== 503 && !inProgress) return answer;
      if (Date.now() > deadline) {
        if (answer) return answer;
        throw new Error(`${method} ${path}: no API process answered`);
      }
      await sleep(1000);
    }
  }
}
