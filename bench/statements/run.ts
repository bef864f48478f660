// npm run bench:statements [-- options]: a statement of a million balance transactions streamed
// as CSV by the built API, with the API's resident memory sampled throughout. See bench/statements/README.md.
import type { Client } from 'pg';
import { connectDatabase, createMerchant, postgresVersion, seededTarget } from '../kit/database';
import { parseOptions } from '../kit/options';
import { build } from '../kit/processes';
import { describeMachine, gitDescription, writeJson } from '../kit/report';
import { runBenchmark } from '../kit/run';
import { startApi } from '../kit/services';
import { environment, target } from '../kit/settings';
import { inSlices } from '../kit/slices';
import { download, rssMb } from './download';

const TARGET = target('payments_bench_statements', 3);
const SLICE = 100_000; // payments per INSERT statement while seeding
const AMOUNT = '0.01';
const TARGET_RSS_MB = 100;
const SAMPLE_EVERY_MS = 20;

const USAGE = `Usage: npm run bench:statements [-- options]
  --no-build   use dist/ as it is (default: npm run build first)
  --rows N     balance transactions of the merchant (default 1000000)
  --reuse      keep the database of an earlier run with the same --rows (no reseeding)`;

const options = parseOptions(USAGE, {
  rows: { type: 'string', default: '1000000' },
  reuse: { type: 'boolean', default: false },
});
const ROWS = options.whole('rows');
const ENV = environment(TARGET);

/**
 * A merchant with ROWS payments of 0.01 USDT, posted as settlement posts them (one ledger entry
 * each, the deposits account against the merchant's), SLICE to a statement: the real balances
 * trigger writes each one's running balance, so the statement read later is the ledger's own.
 */
async function seed(db: Client, step: (message: string) => void) {
  const merchant = createMerchant(ENV, 'Statements bench');
  const accounts = ['deposits:TRON:USDT', `merchant:${merchant.id}:-:TRON:USDT`];
  await inSlices(
    { from: 1, to: ROWS, slice: SLICE },
    (_, count) =>
      db.query(
        `WITH entry AS (
           INSERT INTO ledger_entries (reference, kind)
           SELECT 'checkout_session:cs_bench_' || md5(random()::text) || ':v1', 'deposit'
             FROM generate_series(1, $1)
           RETURNING id)
         INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id)
         SELECT entry.id, line.account, 'USDT', 'TRON', line.amount, line.merchant_id
           FROM entry CROSS JOIN LATERAL (VALUES ($2, $4::numeric, NULL), ($3, -$4::numeric, $5))
             AS line(account, amount, merchant_id)
          ORDER BY entry.id, line.account`,
        [count, ...accounts, AMOUNT, merchant.id],
      ),
    (last) => step(`  payments: ${last.toLocaleString('en-US')}`),
  );
  return { merchantId: merchant.id, apiKey: merchant.apiKey };
}

const round = (value: number) => Math.round(value * 10) / 10;

runBenchmark('statements', async ({ step, base, log }) => {
  build(options.build, step);
  const seeded = await seededTarget(
    TARGET,
    ENV,
    { size: ROWS, reuse: Boolean(options.values.reuse), step },
    (db) => seed(db, step),
  );
  const { url, process: api } = await startApi({ env: ENV, logFile: log('api') });
  const pid = api.child.pid!;
  const headers = { Authorization: `Bearer ${seeded.apiKey}` };
  // A warm API: a JSON page and a short CSV first, as a running service has served them.
  await fetch(`${url}/v1/balance-transactions?page_size=100`, { headers }).then((r) => r.text());
  const idleRss = rssMb(pid);
  step(`API started (pid ${pid}), resident ${round(idleRss)} MB; streaming the CSV`);

  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(pid)), SAMPLE_EVERY_MS);
  const result = await download(`${url}/v1/balance-transactions`, {
    ...headers,
    Accept: 'text/csv',
  });
  clearInterval(sampler);
  const peakRss = Math.max(idleRss, ...samples);
  const expectedFirstBalance = (ROWS / 100).toString();
  const firstBalance = result.firstRecord.split(',')[7];
  const db = await connectDatabase(TARGET.databaseUrl);
  const postgres = await postgresVersion(db);
  await db.end();
  const report = {
    benchmark: 'statements',
    git: gitDescription(),
    machine: describeMachine(postgres, 'no anvil'),
    rows: ROWS,
    status: result.status,
    transfer_encoding: result.headers['transfer-encoding'] ?? null,
    records: result.records - 1,
    bytes: result.bytes,
    first_byte_ms: round(result.firstByteMs),
    total_ms: round(result.totalMs),
    rows_per_second: Math.round((result.records - 1) / (result.totalMs / 1000)),
    api_rss_idle_mb: round(idleRss),
    api_rss_peak_mb: round(peakRss),
    // What the export itself costs: the idle API (every module loaded) is already larger than
    // the target, so the target applies to the growth while streaming.
    api_rss_growth_mb: round(peakRss - idleRss),
    api_rss_samples: samples.length,
    // The peak of each tenth of the download: flat when memory does not grow with the rows read.
    api_rss_peak_by_tenth_mb: Array.from({ length: 10 }, (_, tenth) =>
      round(
        Math.max(
          ...samples.slice(
            Math.floor((tenth * samples.length) / 10),
            Math.max(Math.floor(((tenth + 1) * samples.length) / 10), 1),
          ),
        ),
      ),
    ),
    target_rss_mb: TARGET_RSS_MB,
    first_balance_after: firstBalance,
    ok:
      result.status === 200 &&
      result.records - 1 === ROWS &&
      firstBalance === expectedFirstBalance &&
      peakRss - idleRss < TARGET_RSS_MB,
  };
  console.log(JSON.stringify(report, null, 2));
  writeJson(`${base}.json`, report);
  if (!report.ok) process.exitCode = 1;
});
