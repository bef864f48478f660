// npm run bench:pg-client [-- --queries N]: GC pauses of pg's promise mode and of the app's
// CallbackQueryClient, each in a child process of its own. See bench/pg-client/README.md.
import { spawnSync } from 'node:child_process';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Client, Pool } from 'pg';
import { CallbackQueryClient } from '../../libs/database/src/callback-query-client';
import { parseOptions } from '../kit/options';
import { printTable } from '../kit/report';
import { percentile } from '../kit/stats';

const USAGE = `Usage: npm run bench:pg-client [-- options]
  --queries N      one-row queries per mode (default 6000)
  --database URL   the database to query (default the local postgres; nothing is written)`;
const options = parseOptions(USAGE, {
  queries: { type: 'string', default: '6000' },
  'child-mode': { type: 'string' },
  database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
});
const QUERIES = options.whole('queries');
const DATABASE = options.values.database as string;
const WARMUP = 500;
const MODES = ['promise', 'callback'] as const;
// A row the size of one checkout session as the API reads it (about 30 columns, 1 kB).
const SQL = `SELECT g AS id, repeat('x', 40) AS a, repeat('y', 40) AS b, now() AS c, now() AS d,
  '12.345678'::numeric AS e, repeat('z', 600) AS f, $1::text AS g FROM generate_series(1, 1) g`;

interface ChildReport {
  scavengeMs: number[];
  fullCollections: number;
  oldGrowthMb: number;
}

/** One mode, in this (child) process: WARMUP queries, then QUERIES with the collections observed. */
async function child(mode: string): Promise<ChildReport> {
  const pool = new Pool({
    connectionString: DATABASE,
    max: 4,
    Client: mode === 'callback' ? CallbackQueryClient : Client,
  });
  // The way TypeORM runs a query: a client from the pool, `query(text, values)`, release.
  const runOne = async () => {
    const client = await pool.connect();
    try {
      await client.query(SQL, ['value']);
    } finally {
      client.release();
    }
  };
  const oldSpace = () =>
    getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ??
    0;
  for (let i = 0; i < WARMUP; i++) await runOne(); // V8 compiles the path
  const report: ChildReport = { scavengeMs: [], fullCollections: 0, oldGrowthMb: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) report.scavengeMs.push(entry.duration);
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) report.fullCollections += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const before = oldSpace();
  for (let i = 0; i < QUERIES; i++) await runOne();
  report.oldGrowthMb = (oldSpace() - before) / 1e6;
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last entries' delivery
  observer.disconnect();
  await pool.end();
  return report;
}

function runMode(mode: string): string[] {
  const args = ['--child-mode', mode, '--queries', String(QUERIES), '--database', DATABASE];
  const run = spawnSync(
    process.execPath,
    ['--max-semi-space-size=16', ...process.execArgv, __filename, ...args],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`the ${mode} run failed: ${run.stderr}`);
  const report = JSON.parse(run.stdout.trim().split('\n').pop() as string) as ChildReport;
  const pauses = report.scavengeMs;
  return [
    mode,
    String(pauses.length),
    (pauses.length ? percentile(pauses, 50) : 0).toFixed(2),
    Math.max(0, ...pauses).toFixed(2),
    String(report.fullCollections),
    report.oldGrowthMb.toFixed(1),
  ];
}

const childMode = options.values['child-mode'] as string | undefined;
if (childMode) {
  child(childMode).then(
    (report) => console.log(JSON.stringify(report)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  console.log(
    `${QUERIES} queries per mode, one process each, --max-semi-space-size=16 (the API's)`,
  );
  printTable([
    ['mode', 'scavenges', 'pause p50 ms', 'pause max ms', 'full GCs', 'old space growth MB'],
    ...MODES.map(runMode),
  ]);
}
