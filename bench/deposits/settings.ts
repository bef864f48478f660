import { environment, target } from '../kit/settings';

/** The database, Redis and environments of `npm run bench:deposits`. */

// bench/payouts imports these from here; they go when it moves onto bench/kit.
export { CLI_MAIN, EXIT_ON_SIGTERM, RESULTS_DIR, ROOT, WORKER_MAIN } from '../kit/settings';

export const TARGET = target('payments_bench_deposits', 8);
export const DATABASE = TARGET.database;
export const DATABASE_URL = TARGET.databaseUrl;
export const REDIS_URL = TARGET.redisUrl;

/** The devnet's confirmations in the NETWORKS_FILE: a transfer's own block confirms it. */
export const CONFIRMATIONS = 1;

/** The CLI's environment (bench/payouts passes its own database and Redis in `extra`). */
export function appEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return environment(TARGET, extra);
}

export interface WorkerSettings {
  networksFile: string;
  /** DEPOSIT_SCAN_INTERVAL_MS, or null for the worker's default (the variable is not set). */
  scanIntervalMs: number | null;
}

/** The worker's: default configuration and logging (info logs only ticks that found something). */
export function workerEnvironment(settings: WorkerSettings): NodeJS.ProcessEnv {
  return appEnvironment({
    NETWORKS_FILE: settings.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
    ...(settings.scanIntervalMs === null
      ? {}
      : { DEPOSIT_SCAN_INTERVAL_MS: String(settings.scanIntervalMs) }),
  });
}
