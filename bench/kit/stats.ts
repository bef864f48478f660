export interface Distribution {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles, in whole milliseconds (the polling is every 10 ms anyway). */
export function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (percent: number) =>
    sorted.length ? sorted[Math.max(Math.ceil((percent / 100) * sorted.length) - 1, 0)] : NaN;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(sorted.length, 1);
  return {
    count: sorted.length,
    min: Math.round(at(0)),
    p50: Math.round(at(50)),
    p90: Math.round(at(90)),
    p99: Math.round(at(99)),
    max: Math.round(sorted[sorted.length - 1] ?? NaN),
    mean: Math.round(mean),
  };
}

/** `value` to `digits` decimals. */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A random order of 0..count-1 (Fisher-Yates). */
export function shuffledIndexes(count: number): number[] {
  const indexes = Array.from({ length: count }, (_, index) => index);
  for (let index = count - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [indexes[index], indexes[other]] = [indexes[other], indexes[index]];
  }
  return indexes;
}

/** Nearest-rank percentile `p` (0-100) of `values` in any order, unrounded. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1), 0)];
}
