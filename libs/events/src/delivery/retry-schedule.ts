/**
 * Seconds to wait after the n-th failed attempt (index n - 1). The first retry comes within
 * seconds, later ones spread out; the sum (4.15 days, 3.3 at the lowest jitter) keeps retrying for
 * more than 3 days, like Stripe, and an endpoint down for the weekend still gets every event.
 */
export const RETRY_DELAYS_SECONDS = [
  10, 60, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400, 86_400,
] as const;

/** Attempts in all: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Retries of many events failing at once spread over ±20 % instead of arriving together. */
const JITTER = 0.2;

/** The longest a Retry-After is honoured; beyond it the receiver is treated as failing. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * When to try again after `attemptsMade` attempts failed, in ms from now; null when retries are
 * exhausted. A Retry-After (429 or 503) pushes the retry back, never forward.
 */
export function retryDelayMs(
  attemptsMade: number,
  retryAfterSeconds: number | null = null,
  random: () => number = Math.random,
): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_SECONDS[attemptsMade - 1] * 1000;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfterSeconds === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000);
}
