import type { ServiceProcess } from './cluster';

// `ws` is in node_modules (a dependency of the apps' dependencies) without its types; the soak
// needs only this much of it. Node 20 has no global WebSocket.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const WebSocket = require('ws') as new (
  url: string,
  options: { handshakeTimeout: number },
) => {
  on(event: 'open' | 'close', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  send(data: string): void;
  terminate(): void;
};

/** Each CDP step (connect, the forced GC, the heap read) is given up after this long. */
const CALL_TIMEOUT_MS = 15_000;
const SAMPLE_EVERY_MS = 60_000;
/** A process's first minutes (modules, pools, caches, JIT) are not judged. */
export const HEAP_WARM_UP_MS = 180_000;
/** Judged only with this many samples after the warm-up, spanning this long (else reported). */
const MIN_JUDGED_SAMPLES = 5;
const MIN_JUDGED_SPAN_MS = 240_000;
export const HEAP_SLOPE_LIMIT_MB_PER_MIN = 1;

/**
 * The live heap after a forced full GC, in MB, read through the process's inspector (Chrome
 * DevTools Protocol): `HeapProfiler.collectGarbage` then `Runtime.getHeapUsage`. Every step has a
 * timeout and the socket is closed whatever happens: a process the nemesis kills mid-sample
 * fails the sample, never the run.
 */
export async function heapAfterGc(url: string): Promise<number> {
  const socket = new WebSocket(url, { handshakeTimeout: CALL_TIMEOUT_MS });
  const waiting = new Map<number, (answer: { result?: unknown; error?: unknown }) => void>();
  let failed: ((error: Error) => void) | undefined;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  failure.catch(() => undefined);
  socket.on('error', (error) => failed?.(error));
  socket.on('close', () => failed?.(new Error('inspector connection closed')));
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const within = <T>(step: string, work: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${step}: no answer in ${CALL_TIMEOUT_MS} ms`)),
        CALL_TIMEOUT_MS,
      );
    });
    return Promise.race([work, timeout, failure]).finally(() => clearTimeout(timer));
  };
  let nextId = 1;
  const call = (method: string) => {
    const id = nextId++;
    const answered = new Promise<{ result?: unknown; error?: unknown }>((resolve) =>
      waiting.set(id, resolve),
    );
    socket.send(JSON.stringify({ id, method }));
    return within(method, answered).then((answer) => {
      if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
      return answer.result as Record<string, unknown>;
    });
  };
  try {
    await within('connect', new Promise<void>((resolve) => socket.on('open', resolve)));
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.getHeapUsage');
    return Number(usage.usedSize) / 1024 / 1024;
  } finally {
    failed = undefined;
    socket.terminate();
  }
}

interface HeapSample {
  pid: number;
  startedAt: number;
  at: number;
  mb: number;
}

export interface HeapJudgement {
  /** Least-squares slope of the heap after GC, MB/min; null when not judged. */
  slopeMbPerMin: number | null;
  judged: boolean;
  why?: string;
  fromMb: number | null;
  toMb: number | null;
  samples: number;
  minutes: number;
  restarts: number;
  failedSamples: number;
}

/**
 * Once a minute, per live process, the heap after a forced GC (heapAfterGc). RSS is no measure of
 * a leak: V8 grows its heap lazily and gives pages back late (a worker's RSS rose 6–8 minutes to
 * about 290 MB then stayed flat; one forced GC took it to 160 MB) while its live heap stayed at
 * 55–57 MB. One sample at a time per process; the next minute skips a process still being read.
 */
export class HeapSampler {
  readonly samples = new Map<string, HeapSample[]>();
  readonly failures = new Map<string, number>();
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly processes: () => ServiceProcess[]) {}

  start(): void {
    this.sampleAll();
    this.timer = setInterval(() => this.sampleAll(), SAMPLE_EVERY_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private sampleAll(): void {
    for (const process of this.processes()) void this.sample(process);
  }

  private async sample(process: ServiceProcess): Promise<void> {
    const incarnation = process.incarnation();
    if (!incarnation || this.busy.has(process.name)) return;
    this.busy.add(process.name);
    try {
      const url = await incarnation.inspectorUrl();
      if (!url) throw new Error('no inspector URL printed');
      const mb = await heapAfterGc(url);
      const list = this.samples.get(process.name) ?? [];
      list.push({ pid: incarnation.pid, startedAt: incarnation.startedAt, at: Date.now(), mb });
      this.samples.set(process.name, list);
    } catch {
      // Killed mid-sample, or its inspector not up yet: the next minute reads its successor.
      this.failures.set(process.name, (this.failures.get(process.name) ?? 0) + 1);
    } finally {
      this.busy.delete(process.name);
    }
  }

  /**
   * Per process, the longest-lived incarnation's samples taken after its first HEAP_WARM_UP_MS:
   * judged when there are at least MIN_JUDGED_SAMPLES spanning MIN_JUDGED_SPAN_MS (a 3-minute
   * soak:ci run has that only for a process the nemesis did not kill), else reported only.
   */
  judge(): Record<string, HeapJudgement> {
    const result: Record<string, HeapJudgement> = {};
    for (const [name, samples] of this.samples) {
      const byPid = new Map<number, HeapSample[]>();
      for (const sample of samples)
        byPid.set(sample.pid, [...(byPid.get(sample.pid) ?? []), sample]);
      const longest = [...byPid.values()].sort((a, b) => span(b) - span(a))[0];
      const warm = longest.filter((sample) => sample.at - sample.startedAt >= HEAP_WARM_UP_MS);
      const judged = warm.length >= MIN_JUDGED_SAMPLES && span(warm) >= MIN_JUDGED_SPAN_MS;
      result[name] = {
        slopeMbPerMin: judged ? round(slope(warm) * 60_000, 3) : null,
        judged,
        ...(judged
          ? {}
          : {
              why: `${warm.length} samples over ${round(span(warm) / 60_000, 1)} min after the warm-up (needs ${MIN_JUDGED_SAMPLES} over ${MIN_JUDGED_SPAN_MS / 60_000})`,
            }),
        fromMb: round((warm[0] ?? longest[0]).mb, 1),
        toMb: round(longest[longest.length - 1].mb, 1),
        samples: warm.length,
        minutes: round(span(warm) / 60_000, 1),
        restarts: byPid.size - 1,
        failedSamples: this.failures.get(name) ?? 0,
      };
    }
    return result;
  }
}

const span = (samples: Array<{ at: number }>) =>
  samples.length ? samples[samples.length - 1].at - samples[0].at : 0;
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Least-squares slope, MB per ms. */
export function slope(samples: Array<{ at: number; mb: number }>): number {
  const n = samples.length;
  const mx = samples.reduce((sum, s) => sum + s.at, 0) / n;
  const my = samples.reduce((sum, s) => sum + s.mb, 0) / n;
  const sxy = samples.reduce((sum, s) => sum + (s.at - mx) * (s.mb - my), 0);
  const sxx = samples.reduce((sum, s) => sum + (s.at - mx) ** 2, 0);
  return sxx ? sxy / sxx : 0;
}
