/**
 * Writes rows from..to in slices of `slice` rows, one statement each (a big seed in one would
 * hold a transaction for minutes), and reports the last row written after each.
 */
export async function inSlices(
  rows: { from: number; to: number; slice: number },
  write: (first: number, count: number) => Promise<unknown>,
  progress: (last: number) => void,
): Promise<void> {
  for (let first = rows.from; first <= rows.to; first += rows.slice) {
    const count = Math.min(rows.slice, rows.to - first + 1);
    await write(first, count);
    progress(first + count - 1);
  }
}
