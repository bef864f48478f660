// npm run bench:statements [-- options]: a statement of a million balance transactions streamed
// as CSV by the built API, with the API's resident memory sampled throughout. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { dropDatabase } from '../../libs/database/src/migrate';
import { sleep } from '../deposits/clock';
import { describeMachine, gitDescription } from '../deposits/report';
import {
  apiNodeArgs,
  build,
  installCleanup,
  runCli,
  startNode,
  stopAllProcesses,
  TrackedProcess,
} from '../deposits/processes';
import { appEnvironment, CLI_MAIN, RESULTS_DIR, ROOT } from '../deposits/settings';
import { download, rssMb } from './download';
import { seedPayments } from './seed';

const API_MAIN = 'dist/apps/api/apps/api/src/main.js';
// Its own database and Redis database: the other benchmarks and the tests use others.
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/payments_bench_statements';
const REDIS_URL = 'redis://127.0.0.1:6379/10';
const SLICE = 100_000; // payments per INSERT statement while seeding
const AMOUNT = '0.01';
const TARGET_RSS_MB = 100;
const SAMPLE_EVERY_MS = 20;

const USAGE = `Usage: npm run bench:statements [-- options]
  --no-build   use dist/ as it is (default: npm run build first)
  --rows N     balance transactions of the merchant (default 1000000)
  --reuse      keep the database of an earlier run with the same --rows (no reseeding)`;

const { values: args } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    rows: { type: 'string', default: '1000000' },
    reuse: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const ROWS = Number(args.rows);
if (!Number.isInteger(ROWS) || ROWS < 1) {
  console.error(`--rows must be a whole number >= 1.\n\n${USAGE}`);
  process.exit(2);
}

const startedAt = Date.now();
function step(message: string): void {
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s] ${message}`);
}

const env = (extra: Record<string, string> = {}) =>
  appEnvironment({ DATABASE_URL, REDIS_URL, ...extra });

interface Seeded {
  merchantId: string;
  apiKey: string;
}

async function seed(): Promise<Seeded> {
  step(`resetting ${DATABASE_URL} and migrating it`);
  await dropDatabase(DATABASE_URL);
  runCli(['db:migrate'], env());
  const merchant = runCli<{ merchant_id: string; api_key: string }>(
    ['merchants:create', '--name', 'Statements bench'],
    env(),
  );
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    for (let done = 0; done < ROWS; done += SLICE) {
      await seedPayments(db, {
        merchantId: merchant.merchant_id,
        network: 'TRON',
        currency: 'USDT',
        amount: AMOUNT,
        count: Math.min(SLICE, ROWS - done),
      });
      step(`  payments: ${Math.min(done + SLICE, ROWS).toLocaleString('en-US')}`);
    }
    step('VACUUM ANALYZE');
    await db.query('VACUUM ANALYZE');
    await db.query(`CREATE TABLE bench_statements_seed (rows int, merchant_id text, api_key text)`);
    await db.query(`INSERT INTO bench_statements_seed VALUES ($1, $2, $3)`, [
      ROWS,
      merchant.merchant_id,
      merchant.api_key,
    ]);
  } finally {
    await db.end();
  }
  return { merchantId: merchant.merchant_id, apiKey: merchant.api_key };
}

async function earlierSeed(): Promise<Seeded | null> {
  const db = new Client({ connectionString: DATABASE_URL });
  try {
    await db.connect();
    const { rows } = await db.query(
      `SELECT merchant_id, api_key FROM bench_statements_seed WHERE rows = $1`,
      [ROWS],
    );
    return rows[0] ? { merchantId: rows[0].merchant_id, apiKey: rows[0].api_key } : null;
  } catch {
    return null;
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** The API as the README starts it (its node flags, production mode, default settings). */
async function startApi(logFile: string): Promise<{ url: string; api: TrackedProcess }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const api = startNode('api', apiNodeArgs(API_MAIN), env({ PORT: String(port) }), logFile);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (api.child.exitCode !== null) throw new Error(`The API exited; see ${logFile}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { url, api };
    await sleep(100);
  }
  throw new Error(`The API did not start; see ${logFile}`);
}

async function postgresVersion(): Promise<string> {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    return (await db.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await db.end();
  }
}

const round = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `statements-${stamp}`);
  build(!args['no-build'], step, [API_MAIN, CLI_MAIN]);
  let seeded = args.reuse ? await earlierSeed() : null;
  if (seeded) {
    step(`--reuse: the ${ROWS.toLocaleString('en-US')} rows of an earlier run; migrating`);
    runCli(['db:migrate'], env());
  } else {
    seeded = await seed();
  }

  const { url, api } = await startApi(`${base}-api.log`);
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
  const report = {
    benchmark: 'statements',
    git: gitDescription(),
    machine: describeMachine(await postgresVersion(), 'no anvil'),
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
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify(report, null, 2));
  step(`report: ${relative(ROOT, `${base}.json`)}`);
  if (!report.ok) process.exitCode = 1;
}

installCleanup(stopAllProcesses);
main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAllProcesses());
