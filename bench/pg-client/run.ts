// npm run bench:pg-client [-- --queries N]: young-generation pauses and old-generation growth of
// one process running the same query through pg's promise mode (TypeORM's way) and through
// CallbackQueryClient, each in a child process of its own. See bench/pg-client/README.md.
import { spawnSync } from 'node:child_process';
import { parseOptions } from '../kit/options';

const USAGE = `Usage: npm run bench:pg-client [-- options]
  --queries N      one-row queries per mode (default 6000)
  --database URL   the database to query (default the local postgres; nothing is written)`;
const { values: args, ...options } = parseOptions(USAGE, {
  queries: { type: 'string', default: '6000' },
  'child-mode': { type: 'string' },
  database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
});
const QUERIES = options.whole('queries');
// A row the size of one checkout session as the API reads it (about 30 columns, 1 kB).
const SQL = `SELECT g AS id, repeat('x', 40) AS a, repeat('y', 40) AS b, now() AS c, now() AS d,
  '12.345678'::numeric AS e, repeat('z', 600) AS f, $1::text AS g FROM generate_series(1, 1) g`;

interface ChildReport {
  mode: string;
  scavenges: number;
  scavengeMs: number[];
  fullCollections: number;
  oldGrowthMb: number;
}

async function child(mode: string): Promise<void> {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const { getHeapSpaceStatistics } = await import('node:v8');
  const pg = await import('pg');
  const { CallbackQueryClient } = await import('../../libs/database/src/callback-query-client');
  const Client = mode === 'callback' ? CallbackQueryClient : pg.Client;
  const pool = new pg.Pool({ connectionString: args.database, max: 4, Client });
  const oldSpace = () =>
    getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ??
    0;
  // Warm up (V8 compiles the path), then measure.
  for (let i = 0; i < 500; i++) await runOne(pool);
  const scavengeMs: number[] = [];
  let fullCollections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavengeMs.push(entry.duration);
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections += 1;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const before = oldSpace();
  for (let i = 0; i < QUERIES; i++) await runOne(pool);
  const growth = oldSpace() - before;
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  await pool.end();
  const report: ChildReport = {
    mode,
    scavenges: scavengeMs.length,
    scavengeMs,
    fullCollections,
    oldGrowthMb: growth / 1e6,
  };
  console.log(JSON.stringify(report));
}

/** One query the way TypeORM runs it: a client from the pool, `query(text, values)`, release. */
async function runOne(pool: import('pg').Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(SQL, ['value']);
  } finally {
    client.release();
  }
}

function percentile(sorted: number[], share: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] : 0;
}

function main(): void {
  console.log(
    `${QUERIES} queries per mode, one process each, --max-semi-space-size=16 (the API's)`,
  );
  console.log('mode      scavenges  pause p50 ms  pause max ms  full GCs  old space growth MB');
  for (const mode of ['promise', 'callback']) {
    const run = spawnSync(
      process.execPath,
      [
        '--max-semi-space-size=16',
        ...process.execArgv,
        __filename,
        '--child-mode',
        mode,
        '--queries',
        String(QUERIES),
        '--database',
        args.database as string,
      ],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`the ${mode} run failed: ${run.stderr}`);
    const report = JSON.parse(run.stdout.trim().split('\n').pop() as string) as ChildReport;
    const pauses = [...report.scavengeMs].sort((a, b) => a - b);
    console.log(
      `${mode.padEnd(9)} ${String(report.scavenges).padStart(9)}  ${percentile(pauses, 0.5)
        .toFixed(2)
        .padStart(12)}  ${(pauses[pauses.length - 1] ?? 0).toFixed(2).padStart(12)}  ${String(
        report.fullCollections,
      ).padStart(8)}  ${report.oldGrowthMb.toFixed(1).padStart(19)}`,
    );
  }
}

if (args['child-mode']) {
  child(args['child-mode']).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main();
}
