import { ChainError } from './chain-error';
import { backoffDelay, withRetry } from './retry';

const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 50 };
const normalize = (error: unknown) =>
  error instanceof ChainError ? error : new ChainError('transient', String(error), 'TEST');

describe('withRetry', () => {
  it('retries transient failures and passes the attempt number for failover', async () => {
    const seen: number[] = [];
    const result = await withRetry(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 2) throw new Error('down');
        return 'ok';
      },
      normalize,
      fast,
    );
    expect(result).toBe('ok');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('stops at the first permanent error', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new ChainError('permanent', 'bad request', 'TEST');
        },
        normalize,
        fast,
      ),
    ).rejects.toMatchObject({ kind: 'permanent' });
    expect(calls).toBe(1);
  });

  it('gives up after the last attempt with the last transient error', async () => {
    await expect(
      withRetry(async () => Promise.reject(new Error('still down')), normalize, fast),
    ).rejects.toMatchObject({ kind: 'transient', message: 'Error: still down' });
  });

  it('abandons a hung attempt after the timeout', async () => {
    const started = Date.now();
    await expect(
      withRetry(() => new Promise(() => undefined), normalize, {
        ...fast,
        attempts: 2,
        timeoutMs: 20,
      }),
    ).rejects.toMatchObject({ kind: 'transient' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps backoff within the capped exponential window', () => {
    const options = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000, timeoutMs: 1 };
    expect(backoffDelay(1, options, () => 0.999)).toBe(199);
    expect(backoffDelay(3, options, () => 0.999)).toBe(799);
    expect(backoffDelay(8, options, () => 0.999)).toBe(999);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });
});
