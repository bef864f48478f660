import { join, resolve } from 'node:path';

/** Paths, names and environments shared by every part of `npm run bench:deposits`. */

export const ROOT = resolve(__dirname, '..', '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

// A database and a Redis database of its own: the other benchmarks (payments_bench*, Redis 12 and
// 13) and the tests (Redis 15, or 14 through TEST_REDIS_URL) may run at the same time, and none
// must see another's rows or queues.
export const DATABASE = 'payments_bench_deposits';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const REDIS_DATABASE = 8;
export const REDIS_URL = `redis://127.0.0.1:6379/${REDIS_DATABASE}`;

/** The devnet's confirmations in the NETWORKS_FILE: a transfer's own block confirms it. */
export const CONFIRMATIONS = 1;

export const CLI_MAIN = 'dist/apps/cli/apps/cli/src/main.js';
export const WORKER_MAIN = 'dist/apps/worker/apps/worker/src/main.js';
/** Nest re-raises SIGTERM, and a process killed by a signal never writes its --cpu-prof file. */
export const EXIT_ON_SIGTERM = join(ROOT, 'bench', 'api', 'exit-on-sigterm.js');
export const SQL_TRACE_PRELOAD = join(__dirname, 'sql-trace-preload.js');

// Public test account keys (the same as bench:api): no wallet is generated, nothing real is at
// stake. The sessions of this benchmark use random addresses anyway; these only let the worker start.
const HD_EVM_XPUB =
  'xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP';
const HD_TRON_XPUB =
  'xpub6BuRy7ZmkGfP2RWhoor1kWB1w9DvrtmJbFBvnC1bQ4SB5NbCHTyQYCJSXZtxDbFyHTmC7wkU2he3nYYdpZ3Vf6qUAkXSnL6RPif4BDtDEKr';

// info is the worker's default level, and the worker logs nothing per request: only ticks that
// found something, which is what the benchmark wants to keep.
export const WORKER_LOG_LEVEL = 'info';

/** The environment of the CLI and of the worker: sandbox, this benchmark's database and Redis. */
export function appEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    APP_ENV: 'sandbox',
    NODE_ENV: 'production',
    DATABASE_URL,
    REDIS_URL,
    HD_EVM_XPUB,
    HD_TRON_XPUB,
    ...extra,
  };
}

export interface WorkerSettings {
  networksFile: string;
  /** DEPOSIT_SCAN_INTERVAL_MS, or null for the worker's default (the variable is not set). */
  scanIntervalMs: number | null;
}

// Tuning a shell may carry: the default configuration is measured with none of them set.
const TUNING_VARIABLES = ['DEPOSIT_SCAN_INTERVAL_MS', 'DATABASE_POOL_SIZE'];

export function workerEnvironment(settings: WorkerSettings): NodeJS.ProcessEnv {
  const env = appEnvironment({
    LOG_LEVEL: WORKER_LOG_LEVEL,
    NETWORKS_FILE: settings.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
  });
  for (const name of TUNING_VARIABLES) delete env[name];
  if (settings.scanIntervalMs !== null) {
    env.DEPOSIT_SCAN_INTERVAL_MS = String(settings.scanIntervalMs);
  }
  return env;
}
