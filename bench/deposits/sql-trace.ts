import type { SqlTraceSnapshot, StatementTotals, TracedTransaction } from '../kit/sql-trace';

/** What the worker's scan ticks did in PostgreSQL during a window (from --trace-sql). */
export interface TickSql {
  ticks: number;
  statements: number;
  /** Time inside the ticks' transactions, and the part of it spent waiting on statements. */
  transactionMs: number;
  sqlMs: number;
  /** The busiest tick of the window, statement by statement. */
  busiest: {
    startedAt: number;
    ms: number;
    statements: number;
    sqlMs: number;
    byStatement: Array<StatementTotals & { statement: string }>;
  } | null;
}

// Only the scan tick's transaction locks the cursor row (compare-and-set on its version; older
// builds read it with FOR UPDATE); expiry and pool refills run other transactions.
const SCAN_TICK_MARKERS = [
  'SELECT 1 FROM chain_cursors WHERE network',
  'SELECT last_scanned_block FROM chain_cursors',
];
const TOP_STATEMENTS = 12;

export function tickSql(trace: SqlTraceSnapshot | null, from: number, to: number): TickSql | null {
  if (!trace) return null;
  const ticks = trace.transactions.filter(
    (transaction) =>
      transaction.startedAt >= from &&
      transaction.startedAt <= to &&
      Object.keys(transaction.byKey).some((key) =>
        SCAN_TICK_MARKERS.some((marker) => key.startsWith(marker)),
      ),
  );
  const sum = (pick: (transaction: TracedTransaction) => number) =>
    ticks.reduce((total, transaction) => total + pick(transaction), 0);
  const busiest = ticks.reduce<TracedTransaction | null>(
    (best, transaction) => (!best || transaction.ms > best.ms ? transaction : best),
    null,
  );
  return {
    ticks: ticks.length,
    statements: sum((transaction) => transaction.statements),
    transactionMs: round(sum((transaction) => transaction.ms)),
    sqlMs: round(sum((transaction) => transaction.sqlMs)),
    busiest: busiest && {
      startedAt: busiest.startedAt,
      ms: round(busiest.ms),
      statements: busiest.statements,
      sqlMs: round(busiest.sqlMs),
      byStatement: Object.entries(busiest.byKey)
        .map(([statement, totals]) => ({ statement, count: totals.count, ms: round(totals.ms) }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, TOP_STATEMENTS),
    },
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
