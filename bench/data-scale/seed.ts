/**
 * Set-based seeding of bench:data-scale: one INSERT ... SELECT generate_series per slice, so ten
 * million rows take minutes. Sessions (and the payouts the list scenarios look for) come from
 * bench/lists/seed.ts; events, their deliveries and attempts are written here, spread over
 * EVENTS_SPAN_DAYS so that retention (90 days for events, 30 for attempts) has work to do.
 */
import type { Client } from 'pg';
import type { SeedRunner } from '../lists/seed';

// Its own database, whatever DATABASE_URL says: the tests' and a developer's are never touched.
export const DATABASE = 'payments_bench_data_scale';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const MERCHANT_ID = 'mer_bench_data_scale';
export const ENDPOINT_ID = 'we_bench_data_scale';
/** Older than the events' retention (90 days) by a month: a third of the events are past it. */
export const EVENTS_SPAN_DAYS = 120;
export const ATTEMPTS_PER_DELIVERY = 3;

/** The merchant and the one webhook endpoint every event is delivered to. */
export async function seedMerchant(runner: SeedRunner): Promise<void> {
  await runner.query(
    `INSERT INTO merchants (id, kind, name) VALUES ($1, 'direct', 'Data scale bench')`,
    [MERCHANT_ID],
  );
  await runner.query(
    `INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, secret)
     VALUES ($1, $2, false, 'https://example.com/hooks', 'whsec_bench')`,
    [ENDPOINT_ID, MERCHANT_ID],
  );
}

interface Slice {
  /** Events n = first..last; n = 1 is the newest, n = total the oldest. */
  first: number;
  last: number;
  /**
   * Every `sample`th n only ('in'), or all but those ('out'): the first stage seeds one event in
   * a hundred over the whole span, the second the rest, so both have rows past retention.
   */
  sample: { every: number; part: 'in' | 'out' };
  total: number;
  newest: Date;
  types: readonly string[];
}

// Event n's time: evenly spread over the span, newest first (about 1 s apart at 10 M).
const EVENT_AT = `$4::timestamptz - (g::float8 / $3) * interval '${EVENTS_SPAN_DAYS} days'`;

/**
 * Events of two per object (sequence 2 the newer, so retention may delete the older one), with one
 * delivery each (id n, Succeeded after three attempts), and the attempts a minute apart.
 * Deliveries carry their ids (OVERRIDING SYSTEM VALUE) so attempts can name them without a join;
 * restartIdentities() moves the identity past them afterwards.
 */
export async function seedEventsSlice(runner: SeedRunner, slice: Slice): Promise<void> {
  const params = [slice.first, slice.last, slice.total, slice.newest, MERCHANT_ID, slice.types];
  const which = `WHERE g % ${slice.sample.every} ${slice.sample.part === 'in' ? '=' : '<>'} 0`;
  await runner.query(
    `INSERT INTO events (id, merchant_id, livemode, type, object_type, object_id, sequence,
       previous_status, data, created_at)
     SELECT 'evt_ds_' || g, $5, false, ($6::text[])[1 + g % cardinality($6::text[])],
            'checkout.session', 'cs_ds_obj' || ((g + 1) / 2),
            CASE WHEN g % 2 = 1 THEN 2 ELSE 1 END, CASE WHEN g % 2 = 1 THEN 'Pending' END,
            json_build_object('object', json_build_object('id', 'cs_ds_obj' || ((g + 1) / 2),
              'object', 'checkout.session', 'status', 'paid', 'amount', '10.00',
              'amount_received', '10.00', 'currency', 'USDT', 'network', 'BSC')),
            ${EVENT_AT}
       FROM generate_series($1::int, $2::int) g ${which}`,
    params,
  );
  await runner.query(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempt_count,
       next_attempt_at, last_attempt_at, created_at, updated_at)
     OVERRIDING SYSTEM VALUE
     SELECT g, 'evt_ds_' || g, $5, 'Succeeded', ${ATTEMPTS_PER_DELIVERY}, NULL,
            ${EVENT_AT} + interval '2 minutes', ${EVENT_AT}, ${EVENT_AT} + interval '2 minutes'
       FROM generate_series($1::int, $2::int) g ${which}`,
    [slice.first, slice.last, slice.total, slice.newest, ENDPOINT_ID],
  );
  await runner.query(
    `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms,
       response_excerpt, error, succeeded)
     SELECT g, ${EVENT_AT} + k * interval '1 minute', CASE WHEN k = 2 THEN 200 ELSE 500 END,
            40 + g % 200, CASE WHEN k = 2 THEN 'ok' ELSE 'Internal Server Error' END, NULL, k = 2
       FROM generate_series($1::int, $2::int) g, generate_series(0, ${ATTEMPTS_PER_DELIVERY - 1}) k ${which}`,
    params.slice(0, 4),
  );
}

/** New deliveries and attempts (the benchmark's writes) take ids past the seeded ones. */
export async function restartIdentities(runner: SeedRunner): Promise<void> {
  for (const table of ['webhook_deliveries', 'webhook_attempts']) {
    await runner.query(
      `SELECT setval(pg_get_serial_sequence('${table}', 'id'),
                     (SELECT COALESCE(max(id), 0) + 1 FROM ${table}), false)`,
    );
  }
}

/** An index the bulk load may drop and build again: any not backing a constraint. */
export interface IndexDefinition {
  name: string;
  definition: string;
}

/**
 * The secondary indexes of `tables` (not primary keys, unique constraints, nor what a foreign key
 * needs), dropped for the bulk load and built again after it: a load that maintains thirty
 * indexes row by row takes several times as long. The built indexes are the migrations' own
 * definitions (pg_get_indexdef).
 */
export async function dropSecondaryIndexes(
  db: Client,
  tables: string[],
): Promise<IndexDefinition[]> {
  const { rows } = await db.query<IndexDefinition>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = ANY(SELECT to_regclass(t) FROM unnest($1::text[]) t)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
      ORDER BY 1`,
    [tables],
  );
  for (const index of rows) await db.query(`DROP INDEX ${index.name}`);
  return rows;
}

export async function buildIndexes(
  runner: SeedRunner,
  indexes: IndexDefinition[],
  progress: (message: string) => void,
): Promise<void> {
  await runner.query(`SET maintenance_work_mem = '512MB'`);
  for (const index of indexes) {
    const started = Date.now();
    await runner.query(index.definition);
    progress(`  index ${index.name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  await runner.query(`RESET maintenance_work_mem`);
}
