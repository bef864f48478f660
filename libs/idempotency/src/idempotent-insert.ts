/** A single-row INSERT whose response is fully known before it runs (see executeInsert). */
export interface IdempotentInsert {
  /** Table and columns come from code, never from input. */
  table: string;
  columns: readonly string[];
  values: unknown[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

function assertIdentifiers(insert: IdempotentInsert): void {
  for (const name of [insert.table, ...insert.columns]) {
    if (!IDENTIFIER.test(name)) throw new Error(`Not an SQL identifier: ${name}`);
  }
}

export function plainInsertSql(insert: IdempotentInsert): string {
  assertIdentifiers(insert);
  return `INSERT INTO ${insert.table} (${insert.columns.join(', ')})
          VALUES (${placeholders(1, insert.columns.length)})`;
}

/**
 * The key row and the resource in one statement: the resource is inserted only if the key row
 * was. On a key conflict PostgreSQL waits for the other statement to finish, then inserts
 * nothing, so two requests with one key can never both create.
 * Parameters: $1 merchant, $2 key, $3 endpoint, $4 request hash, $5 status, $6 body,
 * $7 retention hours, then the resource's values.
 */
export function keyedInsertSql(insert: IdempotentInsert): string {
  assertIdentifiers(insert);
  return `WITH stored_key AS (
            INSERT INTO idempotency_keys
              (merchant_id, idempotency_key, endpoint, request_hash, response_status, response_body, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6::jsonb, now() + make_interval(hours => $7))
            ON CONFLICT (merchant_id, idempotency_key, endpoint) DO NOTHING
            RETURNING 1)
          INSERT INTO ${insert.table} (${insert.columns.join(', ')})
          SELECT ${placeholders(8, insert.columns.length)} WHERE EXISTS (SELECT 1 FROM stored_key)
          RETURNING 1 AS created`;
}
