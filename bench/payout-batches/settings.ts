import { appEnvironment } from '../deposits/settings';

/** Names and environments of `npm run bench:payout-batches`. */

export { CLI_MAIN, RESULTS_DIR, WORKER_MAIN } from '../deposits/settings';
export { API_MAIN } from '../payouts/settings';

// Its own database and Redis database: the other benchmarks may run at the same time.
export const DATABASE = 'payments_bench_payout_batches';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const REDIS_URL = 'redis://127.0.0.1:6379/11';

// Settings that would tune the service if inherited from the shell: removed, so every run
// measures the default configuration (logging included) whatever the caller's environment holds.
const TUNING =
  /^(PAYOUT_|DEPOSIT_|SESSION_|FEE_|UNDERPAYMENT_|RATE_LIMIT_|DATABASE_POOL_SIZE$|LOG_LEVEL$)/;

export interface DevnetFiles {
  networksFile: string;
  hotWalletsFile: string;
}

/** The CLI's environment: this benchmark's database and Redis, sandbox, the defaults. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = appEnvironment({ DATABASE_URL, REDIS_URL, ...extra });
  for (const name of Object.keys(env)) {
    if (TUNING.test(name) && !(name in extra)) delete env[name];
  }
  return env;
}

/** The API as the README starts it, on the devnet's ETHEREUM; default rate limits. */
export function apiEnvironment(files: DevnetFiles, port: number): NodeJS.ProcessEnv {
  return benchEnvironment({
    PORT: String(port),
    NETWORKS_FILE: files.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
  });
}

/** The worker, sending the batches' payouts from the devnet hot wallet while batches arrive. */
export function workerEnvironment(files: DevnetFiles, metricsPort: number): NodeJS.ProcessEnv {
  return benchEnvironment({
    NETWORKS_FILE: files.networksFile,
    HOT_WALLETS_FILE: files.hotWalletsFile,
    WATCH_NETWORKS: 'ETHEREUM',
    WORKER_METRICS_PORT: String(metricsPort),
  });
}
