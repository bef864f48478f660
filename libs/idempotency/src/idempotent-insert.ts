/** What an insert writes, fixed in code: its SQL is built once per shape, never from input. */
export interface InsertShape {
  table: string;
  columns: readonly string[];
  /**
   * SQL computing a column's value in place of its bare parameter, for a value the statement can
   * read itself instead of a query before it (one round trip fewer). `param(column)` is that
   * column's parameter.
   */
  expressions?: Readonly<Record<string, (param: (column: string) => string) => string>>;
}

/** A single-row INSERT whose response is fully known before it runs (see executeInsert). */
export interface IdempotentInsert {
  shape: InsertShape;
  /** One per column, in the shape's order. */
  values: unknown[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const plainSql = new WeakMap<InsertShape, string>();
const keyedSql = new WeakMap<InsertShape, string>();

function assertIdentifiers(shape: InsertShape): void {
  for (const name of [shape.table, ...shape.columns]) {
    if (!IDENTIFIER.test(name)) throw new Error(`Not an SQL identifier: ${name}`);
  }
}

/** The VALUES list: `$n` per column from `$from` on, or the column's expression over those. */
function valueList(shape: InsertShape, from: number): string {
  const param = (column: string): string => {
    const index = shape.columns.indexOf(column);
    if (index < 0) throw new Error(`No column ${column} in this insert`);
    return `$${from + index}`;
  };
  return shape.columns
    .map((column) => shape.expressions?.[column]?.(param) ?? param(column))
    .join(', ');
}

function memoized(cache: WeakMap<InsertShape, string>, shape: InsertShape, build: () => string) {
  let sql = cache.get(shape);
  if (sql === undefined) {
    assertIdentifiers(shape);
    sql = build();
    cache.set(shape, sql);
  }
  return sql;
}

export function plainInsertSql({ shape }: IdempotentInsert): string {
  return memoized(
    plainSql,
    shape,
    () => `INSERT INTO ${shape.table} (${shape.columns.join(', ')})
          VALUES (${valueList(shape, 1)})`,
  );
}

/**
 * The key row and the resource in one statement: the resource is inserted only if the key row
 * was. On a key conflict PostgreSQL waits for the other statement to finish, then inserts
 * nothing, so two requests with one key can never both create.
 * Parameters: $1 merchant, $2 key, $3 endpoint, $4 request hash, $5 status, $6 body,
 * $7 retention hours, then the resource's values.
 */
export function keyedInsertSql({ shape }: IdempotentInsert): string {
  return memoized(
    keyedSql,
    shape,
    () => `WITH stored_key AS (
            INSERT INTO idempotency_keys
              (merchant_id, idempotency_key, endpoint, request_hash, response_status, response_body, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6::jsonb, now() + make_interval(hours => $7))
            ON CONFLICT (merchant_id, idempotency_key, endpoint) DO NOTHING
            RETURNING 1)
          INSERT INTO ${shape.table} (${shape.columns.join(', ')})
          SELECT ${valueList(shape, 8)} WHERE EXISTS (SELECT 1 FROM stored_key)
          RETURNING 1 AS created`,
  );
}
