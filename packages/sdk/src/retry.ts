import { parseRetryAfter } from './errors';

export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retry). */
  maxAttempts: number;
  /** First backoff step; each retry doubles it, with full jitter. */
  baseDelayMs: number;
  /** Longest wait between attempts; a `Retry-After` longer than this is returned, not waited. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
};

/** Statuses that mean "not done, try again later": rate limited, or a dependency down. */
const RETRY_STATUSES = new Set([429, 503]);

// Methods whose repetition changes nothing; anything else is resent after a lost answer only
// with an Idempotency-Key (the API then runs it at most once).
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export type Fetch = (request: Request) => Promise<Response>;

/**
 * A fetch that retries 429 and 503 answers (waiting what `Retry-After` says, else exponential
 * backoff with full jitter) and network errors of requests that are safe to resend. Every attempt
 * sends the same request, headers (the Idempotency-Key above all) included.
 */
export function retryingFetch(
  send: Fetch,
  policy: RetryPolicy,
  sleep: (ms: number) => Promise<void> = defaultSleep,
): Fetch {
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.maxAttempts;
      // A body can be read once: every attempt but the last sends a copy.
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted || !safeToResend(request)) throw error;
        await sleep(backoffMs(attempt, policy));
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const asked = parseRetryAfter(response.headers.get('Retry-After'));
      if (asked !== null && asked > policy.maxDelayMs) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(asked ?? backoffMs(attempt, policy));
    }
  };
}

function safeToResend(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('Idempotency-Key');
}

/** Full jitter (uniform in [0, base·2^(attempt-1)], capped): clients that failed together spread out. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
