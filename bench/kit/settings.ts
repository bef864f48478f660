import { join, resolve } from 'node:path';

/** Paths every benchmark shares, and the environment the service runs with under a benchmark. */

export const ROOT = resolve(__dirname, '..', '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const API_MAIN = 'dist/apps/api/apps/api/src/main.js';
export const CLI_MAIN = 'dist/apps/cli/apps/cli/src/main.js';
export const WORKER_MAIN = 'dist/apps/worker/apps/worker/src/main.js';
/** Nest re-raises SIGTERM, and a process killed by a signal never writes its --cpu-prof file. */
export const EXIT_ON_SIGTERM = join(__dirname, 'exit-on-sigterm.js');
/** Preloaded into a worker by --trace-sql: statements and SQL time per scan tick, over IPC. */
export const SQL_TRACE_PRELOAD = join(__dirname, 'sql-trace-preload.js');
/** Node options that run a benchmark's own TypeScript helper process (receiver, generator). */
export const TS_NODE = ['--require', 'ts-node/register/transpile-only'];

// Public test account keys: no wallet is generated, nothing real is at stake.
export const HD_EVM_XPUB =
  'xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP';
const HD_TRON_XPUB =
  'xpub6BuRy7ZmkGfP2RWhoor1kWB1w9DvrtmJbFBvnC1bQ4SB5NbCHTyQYCJSXZtxDbFyHTmC7wkU2he3nYYdpZ3Vf6qUAkXSnL6RPif4BDtDEKr';

// Not the default: one merchant sends the whole load, far above a merchant's default limit of 100
// requests a second (docs/rate-limits.md).
export const RAISED_RATE_LIMITS = {
  RATE_LIMIT_READS_PER_SECOND: '1000000',
  RATE_LIMIT_WRITES_PER_SECOND: '1000000',
} as const;

// Settings that would tune the service if inherited from the shell: removed, so every run measures
// the default configuration (logging included) whatever the caller's environment holds. What a
// benchmark sets on purpose is passed as `extra` and kept.
const TUNING = new RegExp(
  '^(PAYOUT_|DEPOSIT_|SESSION_|FEE_|UNDERPAYMENT_|RATE_LIMIT_|WEBHOOK|TREASURY_.*_MS$|' +
    'PAY_ADDRESS_POOL_|DATABASE_POOL_SIZE$|LOG_LEVEL$|NODE_ENV$|NETWORKS_FILE$|HOT_WALLETS_FILE$|' +
    'WATCH_NETWORKS$|PORT$|WORKER_METRICS_PORT$)',
);

/** A benchmark's own database and Redis database: benchmarks and tests may run at once. */
export interface Target {
  database: string;
  databaseUrl: string;
  redisUrl: string;
}

/**
 * Redis databases taken: tests 14 and 15; bench:treasury 1, deposits 8, lists 9, console 10,
 * payout-batches 11, webhooks 12, payouts 13, checkout-page 2, statements 3, api 4.
 */
export function target(database: string, redisDatabase: number): Target {
  return {
    database,
    databaseUrl: `postgres://postgres@127.0.0.1:5432/${database}`,
    redisUrl: `redis://127.0.0.1:6379/${redisDatabase}`,
  };
}

/**
 * The CLI's, the API's and the worker's environment: sandbox, the target, the defaults, and
 * NODE_ENV=production as the image sets it (docs/sandbox.md). A name given `undefined` in `extra`
 * is left unset.
 */
export function environment(
  target: Target,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!TUNING.test(name)) env[name] = value;
  }
  return {
    ...env,
    APP_ENV: 'sandbox',
    NODE_ENV: 'production',
    DATABASE_URL: target.databaseUrl,
    REDIS_URL: target.redisUrl,
    HD_EVM_XPUB,
    HD_TRON_XPUB,
    ...extra,
  };
}
