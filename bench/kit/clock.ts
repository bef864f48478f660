/** Epoch milliseconds with sub-millisecond resolution, comparable with PostgreSQL's now(). */
export function timestamp(): number {
  return performance.timeOrigin + performance.now();
}

/** SQL for a timestamp column as epoch milliseconds, comparable with timestamp(). */
export function epochMs(column: string): string {
  return `(extract(epoch FROM ${column}) * 1000)::float8`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
