// What the request log costs PostgreSQL: the API's batch INSERT (the writer's statement, 500
// rows) timed against a table of --rows rows spread over 40 days, in a scratch database that is
// dropped and recreated. Usage: npx ts-node bench/request-log/batch-insert.ts [--rows 1000000] [--batches 200]
// Prints ms per batch (p50, p90) and µs of PostgreSQL time per logged request.
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import { connectDatabase } from '../kit/database';
import { parseOptions } from '../kit/options';
import { target } from '../kit/settings';

const USAGE = 'Usage: npx ts-node bench/request-log/batch-insert.ts [--rows N] [--batches N]';
const options = parseOptions(USAGE, {
  rows: { type: 'string', default: '1000000' },
  batches: { type: 'string', default: '200' },
});
const ROWS = options.whole('rows');
const BATCHES = options.whole('batches');
const BATCH_SIZE = 500;
const TARGET = target('payments_bench_request_log', 5);

// The writer's statement, as libs/console/src/request-log/request-log.writer.ts sends it.
const INSERT_BATCH = `
  INSERT INTO api_request_log
    (merchant_id, livemode, method, path, status, actor, api_key_id, key_hint, console_user_id,
     request_id, latency_ms, created_at)
  SELECT e.merchant_id, e.livemode, e.method, e.path, e.status, e.actor, e.api_key_id, k.key_hint,
         e.console_user_id, e.request_id, e.latency_ms, e.created_at
    FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::int[], $6::text[],
                $7::text[], $8::text[], $9::text[], $10::int[], $11::timestamptz[])
         AS e(merchant_id, livemode, method, path, status, actor, api_key_id, console_user_id,
              request_id, latency_ms, created_at)
    LEFT JOIN api_keys k ON k.id = e.api_key_id`;

async function main(): Promise<void> {
  // The real schema: every migration, in a scratch database made afresh.
  await dropDatabase(TARGET.databaseUrl);
  await migrateDatabase(TARGET.databaseUrl);
  const db = await connectDatabase(TARGET.databaseUrl);
  await db.query(`INSERT INTO merchants (id, kind, name)
                  SELECT 'mer_' || g, 'direct', 'M' || g FROM generate_series(1, 500) g`);
  await db.query(`INSERT INTO api_keys (id, merchant_id, key_hash, key_hint, livemode)
                  SELECT 'key_' || g, 'mer_' || g, decode(md5(g::text), 'hex'), 'sk_test_…' || lpad(g::text, 4, '0'), false
                    FROM generate_series(1, 500) g`);
  const started = Date.now();
  await db.query(
    `INSERT INTO api_request_log (merchant_id, livemode, method, path, status, actor, api_key_id,
       key_hint, request_id, latency_ms, created_at)
     SELECT 'mer_' || (1 + g % 500), false, CASE WHEN g % 3 = 0 THEN 'POST' ELSE 'GET' END,
            '/v1/checkout/sessions', CASE WHEN g % 10 = 0 THEN 400 ELSE 200 END, 'api_key',
            'key_' || (1 + g % 500), 'sk_test_…0001', 'req_' || md5(g::text), g % 200,
            now() - interval '40 days' + g * interval '40 days' / $1
       FROM generate_series(1, $1) g`,
    [ROWS],
  );
  await db.query('VACUUM ANALYZE api_request_log');
  console.log(`seeded ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const times: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const rows = Array.from({ length: BATCH_SIZE }, (_, i) => i + b * BATCH_SIZE);
    const params = [
      rows.map((i) => `mer_${1 + (i % 500)}`),
      rows.map(() => false),
      rows.map((i) => (i % 3 ? 'GET' : 'POST')),
      rows.map(() => '/v1/checkout/sessions/cs_3kTMd9Q2xLp8RvB1nY7cZa'),
      rows.map((i) => (i % 10 ? 200 : 400)),
      rows.map(() => 'api_key'),
      rows.map((i) => `key_${1 + (i % 500)}`),
      rows.map(() => null),
      rows.map((i) => `req_bench_${b}_${i}_${Math.random().toString(36).slice(2, 12)}`),
      rows.map((i) => i % 50),
      rows.map(() => new Date()),
    ];
    const t0 = process.hrtime.bigint();
    await db.query(INSERT_BATCH, params);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  console.log(
    `${BATCHES} batches of ${BATCH_SIZE}: p50 ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms, ` +
      `${((p(0.5) * 1000) / BATCH_SIZE).toFixed(1)} µs per logged request (p50)`,
  );
  await db.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
