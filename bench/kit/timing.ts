import { sleep } from './clock';
import { percentile } from './stats';

/**
 * Calls `call` warmup + samples times, one after another, and returns the samples' durations in
 * ms; the warm-up's are discarded (V8 compiles the path meanwhile). `before` runs ahead of each
 * call, untimed. With `paceMs`, each call starts paceMs after the previous one started (when that
 * one was quicker), so that each finds the machine idle.
 */
export async function timeCalls(
  options: {
    warmup: number;
    samples: number;
    paceMs?: number;
    before?: (index: number) => Promise<unknown>;
  },
  call: (index: number) => Promise<unknown>,
): Promise<number[]> {
  const timings: number[] = [];
  for (let index = 0; index < options.warmup + options.samples; index++) {
    await options.before?.(index);
    const started = performance.now();
    await call(index);
    const elapsed = performance.now() - started;
    if (index >= options.warmup) timings.push(elapsed);
    if (options.paceMs) await sleep(Math.max(options.paceMs - elapsed, 0));
  }
  return timings;
}

/** p50, p99 and max of durations in ms, to 0.01 ms. */
export function latency(timings: number[]): { p50_ms: number; p99_ms: number; max_ms: number } {
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    p50_ms: round(percentile(timings, 50)),
    p99_ms: round(percentile(timings, 99)),
    max_ms: round(Math.max(...timings)),
  };
}
