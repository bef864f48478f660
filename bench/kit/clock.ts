/** Epoch milliseconds with sub-millisecond resolution, comparable with PostgreSQL's now(). */
export function timestamp(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
