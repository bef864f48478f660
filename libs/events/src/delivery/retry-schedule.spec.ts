import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelayMs } from './retry-schedule';

const lowest = () => 0;
const highest = () => 1;

describe('retryDelayMs', () => {
  it('retries the first failure within 30 seconds, even at the highest jitter', () => {
    expect(retryDelayMs(1, null, highest)).toBeLessThanOrEqual(30_000);
    expect(retryDelayMs(1, null, lowest)).toBeGreaterThan(0);
  });

  it('keeps retrying for at least 3 days at the lowest jitter, then gives up', () => {
    let total = 0;
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      total += retryDelayMs(attempts, null, lowest)!;
    }
    expect(total).toBeGreaterThanOrEqual(3 * 86_400_000);
    expect(retryDelayMs(MAX_ATTEMPTS, null, lowest)).toBeNull();
  });

  it('backs off: every delay is at least the one before it', () => {
    const delays = RETRY_DELAYS_SECONDS.map((_, index) =>
      retryDelayMs(index + 1, null, () => 0.5)!,
    );
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
  });

  it('honours a longer Retry-After and ignores a shorter one', () => {
    expect(retryDelayMs(1, 120, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(3, 1, () => 0.5)).toBe(300_000);
  });

  it('caps a Retry-After at a day', () => {
    expect(retryDelayMs(1, 10 * 86_400, () => 0.5)).toBe(86_400_000);
  });
});
