import type { SqlTraceSnapshot } from '../kit/sql-trace';

/** The worker's statements in a window, from the --trace-sql tracer's running totals. */
export interface StatementUse {
  statement: string;
  count: number;
  totalMs: number;
  meanMs: number;
}

const TOP_STATEMENTS = 8;

export function statementsBetween(
  before: SqlTraceSnapshot | null,
  after: SqlTraceSnapshot | null,
): StatementUse[] | null {
  if (!before || !after) return null;
  return Object.entries(after.statements)
    .map(([statement, totals]) => {
      const earlier = before.statements[statement] ?? { count: 0, ms: 0 };
      const count = totals.count - earlier.count;
      const totalMs = totals.ms - earlier.ms;
      return { statement, count, totalMs: round(totalMs), meanMs: round(totalMs / count, 2) };
    })
    .filter((use) => use.count > 0)
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, TOP_STATEMENTS);
}

function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
