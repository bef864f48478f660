import type { SqlRunner } from './sql-runner';
import { isStatementCancelled } from '../errors/statement-cancelled';

/** The default of DATABASE_LIST_TOTAL_TIMEOUT_MS, for processes that never configure it. */
export const DEFAULT_LIST_TOTAL_TIMEOUT_MS = 2000;

let listTotalTimeoutMs = DEFAULT_LIST_TOTAL_TIMEOUT_MS;

/**
 * Sets the limit of exact list totals for this process (the API's database module calls it with
 * DATABASE_LIST_TOTAL_TIMEOUT_MS; 0 = none of its own). A process-wide setting because lists are
 * plain functions over a DataSource, and a process has one database configuration.
 */
export function configureListTotals(settings: { timeoutMs: number }): void {
  listTotalTimeoutMs = settings.timeoutMs;
}

/** A runner that can open a transaction: TypeORM's DataSource and EntityManager. */
interface TransactionalRunner extends SqlRunner {
  transaction<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T>;
}

/**
 * A runner whose transaction would be a new one. Inside a caller's transaction a nested one is a
 * savepoint, whose SET LOCAL would outlive the count until the caller's transaction ended.
 */
function canTransact(runner: SqlRunner): runner is TransactionalRunner {
  const inTransaction = (runner as { queryRunner?: { isTransactionActive?: boolean } }).queryRunner
    ?.isTransactionActive;
  return (
    typeof (runner as Partial<TransactionalRunner>).transaction === 'function' && !inTransaction
  );
}

/**
 * Runs a count under the tighter list-total limit, or resolves `undefined` when PostgreSQL
 * cancelled it for running past that limit: the caller then reports less than an exact total
 * instead of failing the whole list. `SET LOCAL` bounds this one statement's transaction only;
 * the connection goes back to the pool with its own statement_timeout.
 *
 * Only a cancellation of this count is absorbed; any other error (the database unreachable)
 * propagates and is answered as usual.
 */
export async function countWithinListTotalLimit(
  runner: SqlRunner,
  count: (runner: SqlRunner) => Promise<number>,
): Promise<number | undefined> {
  const timeoutMs = listTotalTimeoutMs;
  if (!timeoutMs || !canTransact(runner)) return count(runner);
  try {
    return await runner.transaction(async (inTransaction) => {
      // An integer from the validated configuration: nothing to bind (SET takes no parameters).
      await inTransaction.query(`SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`, []);
      return count(inTransaction);
    });
  } catch (error) {
    if (isStatementCancelled(error)) return undefined;
    throw error;
  }
}
