// What the request log costs PostgreSQL: the API's RequestLogWriter writing batches of 500 against
// a table of --rows rows spread over 40 days, in a scratch database dropped and recreated. See
// bench/request-log/README.md.
import type { DataSource } from 'typeorm';
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import {
  BATCH_SIZE,
  RequestLogWriter,
} from '../../libs/console/src/request-log/request-log.writer';
import { connectDatabase } from '../kit/database';
import { parseOptions } from '../kit/options';
import { count } from '../kit/report';
import { runBenchmark } from '../kit/run';
import { target } from '../kit/settings';
import { percentile } from '../kit/stats';

const USAGE = 'Usage: npx ts-node bench/request-log/batch-insert.ts [--rows N] [--batches N]';
const options = parseOptions(USAGE, {
  rows: { type: 'string', default: '1000000' },
  batches: { type: 'string', default: '200' },
});
const ROWS = options.whole('rows');
const BATCHES = options.whole('batches');
const TARGET = target('payments_bench_request_log', 5);

runBenchmark('request-log', async () => {
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

  // The API's own writer (its statement, its parameters), with its query timed.
  const times: number[] = [];
  const timedSource = {
    query: async (sql: string, params: unknown[]) => {
      const queryStarted = performance.now();
      await db.query(sql, params).finally(() => times.push(performance.now() - queryStarted));
    },
  };
  const writer = new RequestLogWriter(timedSource as unknown as DataSource);
  for (let b = 0; b < BATCHES; b++) {
    for (let i = b * BATCH_SIZE; i < (b + 1) * BATCH_SIZE; i++) {
      // The batch's last record starts the write.
      writer.record({
        merchantId: `mer_${1 + (i % 500)}`,
        livemode: false,
        method: i % 3 ? 'GET' : 'POST',
        path: '/v1/checkout/sessions/cs_3kTMd9Q2xLp8RvB1nY7cZa',
        status: i % 10 ? 200 : 400,
        actor: 'api_key',
        apiKeyId: `key_${1 + (i % 500)}`,
        consoleUserId: null,
        requestId: `req_bench_${b}_${i}_${Math.random().toString(36).slice(2, 12)}`,
        latencyMs: i % 50,
        createdAt: new Date(),
      });
    }
    if (!(await writer.flush())) throw new Error(`batch ${b + 1} was not written (logged above)`);
  }
  await writer.onApplicationShutdown();
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_request_log');
  await db.end();
  if (rows[0].n !== ROWS + BATCHES * BATCH_SIZE) {
    throw new Error(`${count(rows[0].n)} rows logged, ${count(ROWS + BATCHES * BATCH_SIZE)} due`);
  }
  const p = (q: number) => percentile(times, q);
  console.log(
    `${BATCHES} batches of ${BATCH_SIZE}: p50 ${p(50).toFixed(1)} ms, p90 ${p(90).toFixed(1)} ms, ` +
      `${((p(50) * 1000) / BATCH_SIZE).toFixed(1)} µs per logged request (p50)`,
  );
});
