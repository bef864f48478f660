import { join } from 'node:path';
import { environment, RAISED_RATE_LIMITS, target, TS_NODE } from '../kit/settings';

/** The database, Redis and environments of `npm run bench:webhooks`. */

export const TARGET = target('payments_bench_webhooks', 12);

/** The receiver and the event generator, run by ts-node in processes of their own. */
export const RECEIVER_MAIN = join(__dirname, 'receiver.ts');
export const GENERATOR_MAIN = join(__dirname, 'generator.ts');
export const TS_NODE_WITH_PATHS = [...TS_NODE, '--require', 'tsconfig-paths/register'];

/**
 * The service's own defaults for webhook delivery (libs/common/src/config/webhook-variables.ts).
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
  ...RAISED_RATE_LIMITS,
  RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: '1000000',
} as const;

/** The CLI's and the generator's environment: this benchmark's database and Redis, sandbox. */
export function benchEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return environment(TARGET, extra);
}

/**
 * The API's and the worker's: no chain at all (WATCH_NETWORKS=none, no NETWORKS_FILE nor
 * HOT_WALLETS_FILE: the worker boots, schedules nothing on chain and delivers webhooks).
 */
export function serviceEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return benchEnvironment({ WATCH_NETWORKS: 'none', ...NON_DEFAULT, ...extra });
}
