import { appEnvironment } from '../deposits/settings';

/** Names, paths and environments of `npm run bench:payouts`. */

export { CLI_MAIN, EXIT_ON_SIGTERM, RESULTS_DIR, ROOT, WORKER_MAIN } from '../deposits/settings';
export const API_MAIN = 'dist/apps/api/apps/api/src/main.js';

// A database and a Redis database of its own: bench:api (payments_bench) and bench:deposits
// (payments_bench_deposits, Redis 14) may run at the same time and must not see these rows or
// queues, nor drop this database under a running measurement.
export const DATABASE = 'payments_bench_payouts';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const REDIS_URL = 'redis://127.0.0.1:6379/13';

/**
 * The service's own defaults for what drives payout throughput, as documented in the README and
 * validated by libs/common/src/config/environment-variables.ts. The benchmark never sets them:
 * they are printed so a reader knows what the figures were measured with.
 */
export const SERVICE_DEFAULTS = {
  PAYOUT_SEND_CONCURRENCY: 8,
  PAYOUT_TRACK_INTERVAL_MS: 1000,
  DEPOSIT_SCAN_INTERVAL_MS: 3000,
  DATABASE_POOL_SIZE: 20,
  LOG_LEVEL: 'info',
} as const;

// Settings that would tune the service if inherited from the shell: removed, so every run
// measures the default configuration whatever the caller's environment holds.
const TUNING = /^(PAYOUT_|DEPOSIT_|SESSION_|FEE_|UNDERPAYMENT_|DATABASE_POOL_SIZE$|LOG_LEVEL$)/;

/** What the devnet requires of the API and the worker, and nothing more. */
export interface DevnetFiles {
  /** ETHEREUM mapped onto the devnet (RPC URL, token contracts, confirmations 1). */
  networksFile: string;
  /** The devnet hot wallet's key (anvil account #2): read by the worker only. */
  hotWalletsFile: string;
}

/** The CLI's environment: this benchmark's database and Redis, sandbox, public test xpubs. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = appEnvironment({ DATABASE_URL, REDIS_URL, ...extra });
  for (const name of Object.keys(env)) {
    if (TUNING.test(name) && !(name in extra)) delete env[name];
  }
  return env;
}

// Not the default: one merchant sends the whole load, far above a merchant's default limit of 100
// requests a second (docs/rate-limits.md).
export const RAISED_RATE_LIMITS = {
  RATE_LIMIT_READS_PER_SECOND: '1000000',
  RATE_LIMIT_WRITES_PER_SECOND: '1000000',
} as const;

export function apiEnvironment(files: DevnetFiles, port: number): NodeJS.ProcessEnv {
  return benchEnvironment({
    ...RAISED_RATE_LIMITS,
    PORT: String(port),
    NETWORKS_FILE: files.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
  });
}

/** `metricsPort`: each worker its own (two run at once here, and 9464 may be taken). */
export function workerEnvironment(files: DevnetFiles, metricsPort: number): NodeJS.ProcessEnv {
  return benchEnvironment({
    NETWORKS_FILE: files.networksFile,
    HOT_WALLETS_FILE: files.hotWalletsFile,
    WATCH_NETWORKS: 'ETHEREUM',
    WORKER_METRICS_PORT: String(metricsPort),
  });
}
