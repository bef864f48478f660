import { join } from 'node:path';
import { appEnvironment } from '../deposits/settings';

/** Names, paths and environments of `npm run bench:webhooks`. */

export { CLI_MAIN, RESULTS_DIR, ROOT, WORKER_MAIN } from '../deposits/settings';
export { API_MAIN } from '../payouts/settings';

// A database and a Redis database of its own: bench:api (payments_bench), bench:deposits (Redis
// 14), bench:payouts (Redis 13) and the test suites may run at the same time.
export const DATABASE = 'payments_bench_webhooks';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
export const REDIS_URL = 'redis://127.0.0.1:6379/12';

/** The receiver and the event generator, run by ts-node in processes of their own. */
export const RECEIVER_MAIN = join(__dirname, 'receiver.ts');
export const GENERATOR_MAIN = join(__dirname, 'generator.ts');
export const TS_NODE = ['--require', 'ts-node/register/transpile-only'];
export const TS_NODE_WITH_PATHS = [...TS_NODE, '--require', 'tsconfig-paths/register'];

/**
 * The service's own defaults for webhook delivery (libs/common/src/config/environment-variables.ts).
 * Never set by the benchmark: printed so a reader knows what the figures were measured with.
 */
export const SERVICE_DEFAULTS = {
  WEBHOOK_CONCURRENCY: 512,
  WEBHOOK_ENDPOINT_CONCURRENCY: 32,
  WEBHOOK_POLL_INTERVAL_MS: 100,
  WEBHOOK_TIMEOUT_MS: 15000,
  DATABASE_POOL_SIZE: 20,
  LOG_LEVEL: 'info',
} as const;

/**
 * The settings that are not the default: the receivers listen on loopback, which the SSRF checks
 * refuse otherwise (at endpoint creation and at every delivery), and one merchant drives the whole
 * load, far above a merchant's default limit of 100 requests a second (docs/rate-limits.md).
 */
export const NON_DEFAULT = {
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
  RATE_LIMIT_READS_PER_SECOND: '1000000',
  RATE_LIMIT_WRITES_PER_SECOND: '1000000',
  RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: '1000000',
} as const;

// Settings that would tune the service if inherited from the shell: removed, so every run
// measures the default configuration whatever the caller's environment holds. The chain files go
// too: this benchmark runs without a chain.
const TUNING =
  /^(WEBHOOK|PAYOUT_|DEPOSIT_|SESSION_|FEE_|UNDERPAYMENT_|DATABASE_POOL_SIZE$|LOG_LEVEL$|NETWORKS_FILE$|HOT_WALLETS_FILE$|PORT$)/;

/** The CLI's and the generator's environment: this benchmark's database and Redis, sandbox. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = appEnvironment({ DATABASE_URL, REDIS_URL, ...extra });
  for (const name of Object.keys(env)) {
    if (TUNING.test(name) && !(name in extra)) delete env[name];
  }
  return env;
}

/**
 * The API's and the worker's: no chain at all (WATCH_NETWORKS=none, no NETWORKS_FILE nor
 * HOT_WALLETS_FILE: the worker boots, schedules nothing on chain and delivers webhooks).
 */
export function serviceEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return benchEnvironment({ WATCH_NETWORKS: 'none', ...NON_DEFAULT, ...extra });
}
