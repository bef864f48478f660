import type { Client } from 'pg';
import type { Payer, Rpc } from '../kit/chain';
import { timestamp } from '../kit/clock';
import { cpuSnapshot, cpuUsage } from '../kit/cpu';
import type { RpcLog } from '../kit/rpc-log';
import {
  readSqlTrace,
  SqlTraceSnapshot,
  StatementTotals,
  TracedTransaction,
} from '../kit/sql-trace';
import { round } from '../kit/stats';
import { DATABASE } from './settings';
import type { Worker } from './worker';

/** What every phase works with: the database, the devnet and the instruments. */
export interface BenchContext {
  db: Client;
  rpc: Rpc;
  /** The devnet's HTTP JSON-RPC URL (its WebSocket is the same port). */
  rpcUrl: string;
  payer: Payer;
  /** The devnet's USDT contract, checksummed (what sessions store and the watcher compares). */
  tokenContract: string;
  rpcLog: RpcLog;
  anvilPid: number | null;
  step: (message: string) => void;
}

// How often the benchmark looks at PostgreSQL for a status change: the resolution of every
// "until Paid" figure.
export const STATUS_POLL_MS = 10;

/**
 * A measured window, from now until close(): the CPU of the worker, anvil, this database's
 * backends and the benchmark; the worker's RPC calls (anvil's log); its scan ticks' SQL
 * (--trace-sql).
 */
export function openWindow(context: BenchContext, worker: Worker) {
  const pids = { worker: worker.process.child.pid ?? 0, anvil: context.anvilPid };
  const rpcMark = context.rpcLog.mark();
  const cpuBefore = cpuSnapshot(DATABASE, pids);
  const startedAt = timestamp();
  return {
    startedAt,
    async close() {
      const cpu = cpuUsage(cpuBefore, cpuSnapshot(DATABASE, pids));
      const endedAt = timestamp();
      const rpc = await context.rpcLog.workerCallsSince(rpcMark);
      const sql = tickSql(await readSqlTrace(worker.process), startedAt, endedAt);
      return { cpu, rpc, sql, endedAt };
    },
  };
}

/**
 * A payment's time from its (confirming) block mined to its session seen Paid, split at the start
 * of the scan tick's transaction that settled it (paid_at; `paidSeenAt` if unknown).
 */
export function detectionSplit(
  minedAt: number,
  paidSeenAt: number,
  paidAt: number | undefined,
  digits: number,
) {
  const tickStart = paidAt ?? paidSeenAt;
  return {
    latencyMs: round(paidSeenAt - minedAt, digits),
    waitForTickMs: round(tickStart - minedAt, digits),
    tickMs: round(paidSeenAt - tickStart, digits),
  };
}

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
