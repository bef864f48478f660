import { ChainError } from './chain-error';

export interface RetryOptions {
  /** Total attempts, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each attempt is abandoned after this long (a hung RPC must not stall a job). */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  attempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 3_000,
  timeoutMs: 10_000,
};

// A few lines of our own: p-retry is ESM-only (Jest on Node 20 loads CommonJS), and we need the
// attempt number to rotate RPC endpoints.

/** Full-jitter exponential backoff: uniform in [0, min(max, base * 2^attempt)). */
export function backoffDelay(attempt: number, options: RetryOptions, random = Math.random): number {
  return Math.floor(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt));
}

export async function withTimeout<T>(
  operation: Promise<T>,
  timeoutMs: number,
  label: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TimeoutError(`${label} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class TimeoutError extends Error {}

/**
 * Runs `operation(attempt)` until it succeeds, a permanent ChainError is thrown, or attempts run out.
 * `attempt` starts at 0; adapters use it to fail over to the next RPC URL.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  normalize: (error: unknown) => ChainError,
  options: RetryOptions = DEFAULT_RETRY,
  label = 'rpc call',
): Promise<T> {
  let lastError: ChainError | undefined;
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, options));
    try {
      return await withTimeout(operation(attempt), options.timeoutMs, label);
    } catch (error) {
      lastError = error instanceof ChainError ? error : normalize(error);
      if (!lastError.transient) throw lastError;
    }
  }
  throw lastError ?? new Error('withRetry called with attempts < 1');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
