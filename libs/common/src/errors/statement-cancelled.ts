/**
 * Whether PostgreSQL cancelled the statement (SQLSTATE 57014 query_canceled): it ran past the
 * connection's statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS on the API), or an operator
 * cancelled it. Not a bug, and nothing was written (the statement, and its transaction, rolled
 * back): the client may retry, or ask for less. Looks through TypeORM's QueryFailedError.
 */
export function isStatementCancelled(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, driverError } = error as { code?: unknown; driverError?: unknown };
  if (code === '57014') return true;
  return driverError !== error && isStatementCancelled(driverError);
}
