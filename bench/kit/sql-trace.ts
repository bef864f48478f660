import type { TrackedProcess } from './processes';

/*
 * The orchestrator's side of kit/sql-trace-preload.js (--trace-sql): the preloaded tracer in a
 * worker counts statements and SQL time per transaction and answers over the IPC channel.
 */

const TRACE_TIMEOUT_MS = 10_000;
// The message kit/sql-trace-preload.js answers.
const SQL_TRACE_REQUEST = 'bench:sql-trace';

/** Asks the preloaded SQL tracer for everything it has recorded so far. */
export async function readSqlTrace(worker: TrackedProcess): Promise<SqlTraceSnapshot | null> {
  const child = worker.child;
  if (!child.send) return null; // started without the tracer (no IPC channel)
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: string }).type !== SQL_TRACE_REQUEST) return;
      finish();
      resolve(message as SqlTraceSnapshot);
    };
    const finish = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`The worker's SQL tracer did not answer; see ${worker.logFile}`));
    }, TRACE_TIMEOUT_MS);
    child.on('message', onMessage);
    child.send(SQL_TRACE_REQUEST);
  });
}

export interface SqlTraceSnapshot {
  statements: Record<string, StatementTotals>;
  transactions: TracedTransaction[];
}

export interface StatementTotals {
  count: number;
  ms: number;
}

export interface TracedTransaction {
  startedAt: number;
  ms: number;
  statements: number;
  sqlMs: number;
  byKey: Record<string, StatementTotals>;
}
