// Node's socket errors and PostgreSQL's: 08xxx connection exceptions, 57P01-57P03 (shut down by
// an administrator or a crash, or not accepting connections yet), 53300 (too many connections),
// 25P03 and 57P05 (the session closed by idle_in_transaction_session_timeout or
// idle_session_timeout: the request's transaction is gone, retrying it is safe).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '25P03',
  '57P05',
]);
// node-postgres reports a lost connection or pool timeout with a message and no code.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i;

/**
 * Whether an error means the database cannot be reached right now (refused, restarting, connection
 * lost), as opposed to a bug or a bad query: the client should retry later, and the answer is
 * 503 service_unavailable, not 500. Looks through TypeORM's QueryFailedError (driverError),
 * `cause` chains and AggregateError (one per address tried).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { name, code, message, driverError, cause, errors } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  // A transaction's connection ended by PostgreSQL or the network, whatever its error said
  // (@app/database's DatabaseConnectionLostError; this library cannot import that one).
  if (name === 'DatabaseConnectionLostError') return true;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  const nested = [driverError, cause, ...(Array.isArray(errors) ? errors : [])];
  return nested.some((inner) => inner !== error && isDatabaseUnavailable(inner, depth + 1));
}
