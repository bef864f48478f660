import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { IntegerSetting } from './integer-setting';
import { IsRateLimitValue } from '../rate-limit/rate-limit-value.validator';
import { IsTrustProxyValue, TRUST_PROXY_MESSAGE } from '../rate-limit/trust-proxy';

export const APP_ENVS = ['sandbox', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

const DECIMAL_AMOUNT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/;
const DECIMAL_PERCENT = /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/;
const NETWORK_KEY = '[A-Z]+';
const PAIR_KEY = '[A-Z]+:[A-Z]+';
/** "KEY=1.5,OTHER=2" (or empty): per-network or per-pair decimal settings in one variable. */
const decimalMap = (key: string) =>
  new RegExp(`^(${key}=[0-9]{1,12}(\\.[0-9]{1,6})?(,${key}=[0-9]{1,12}(\\.[0-9]{1,6})?)*)?$`);

const toDecimalNumber = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : value;
const REFUND_DELAY_MESSAGE =
  'REFUND_DESTINATION_DELAY_MINUTES must be a number of minutes from 0 to 1440 (at most 2 decimals).';

/** Every variable the processes read. Each message names its variable so a bad start is obvious. */
export class EnvironmentVariables {
  @IsIn(APP_ENVS, { message: 'APP_ENV must be "sandbox" or "production".' })
  APP_ENV: AppEnv = 'sandbox';

  @IntegerSetting({ min: 1, max: 65535 })
  PORT = 3000;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL.' })
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// URL.' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, {
    message: 'PUBLIC_URL must be an http(s) URL such as https://pay.example.com.',
  })
  PUBLIC_URL?: string;

  @IsOptional()
  @Matches(/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/, {
    message: "HD_EVM_XPUB must be a BIP-32 extended public key (xpub...) of m/44'/60'/0'.",
  })
  HD_EVM_XPUB?: string;

  @IsOptional()
  @Matches(/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/, {
    message: "HD_TRON_XPUB must be a BIP-32 extended public key (xpub...) of m/44'/195'/0'.",
  })
  HD_TRON_XPUB?: string;

  @IsOptional()
  @IsString({ message: 'NETWORKS_FILE must be a path to a JSON network registry.' })
  NETWORKS_FILE?: string;

  @IsOptional()
  @IsString({ message: 'FX_RATES_FILE must be a path to a JSON table of USD rates.' })
  FX_RATES_FILE?: string;

  // Polled for the rates document (docs/configuration-checks.md); may carry an API key, so the
  // messages never repeat it.
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#]+(\/\S*)?$/, {
    message: 'FX_RATES_URL must be an http(s) URL of a rates document.',
  })
  FX_RATES_URL?: string;

  @IntegerSetting({ min: 1, max: 86400 })
  FX_RATES_REFRESH_SECONDS = 60;

  @IntegerSetting({ min: 60, max: 2592000 })
  FX_RATES_MAX_AGE_SECONDS = 3600;

  @IsString({ message: 'DEV_SECRETS_DIR must be a folder path.' })
  DEV_SECRETS_DIR = '.secrets';

  @IntegerSetting({ min: 5, max: 10080 })
  SESSION_LIFETIME_MINUTES = 60;

  // How long a refund waits for the customer's address (requires_destination) before the worker
  // cancels it and releases its hold (docs/refunds.md, States). 7 days by default, 90 at most.
  @IntegerSetting({ min: 5, max: 129600 })
  REFUND_DESTINATION_EXPIRY_MINUTES = 10080;

  // How long an address the customer gave on the hosted page waits before its refund may be
  // signed, so that the merchant can cancel it (docs/refunds.md). Unset: 15 in production, 1 in
  // the sandbox; fractions allowed (tests use seconds). At least 1 in production
  // (productionSafetyProblems).
  @IsOptional()
  @Transform(toDecimalNumber)
  @IsNumber({ maxDecimalPlaces: 2 }, { message: REFUND_DELAY_MESSAGE })
  @Min(0, { message: REFUND_DELAY_MESSAGE })
  @Max(1440, { message: REFUND_DELAY_MESSAGE })
  REFUND_DESTINATION_DELAY_MINUTES?: number;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.',
  })
  LOG_LEVEL = 'info';

  // Traces (docs/operations.md, "Traces"): off unless "true". Read before Nest loads by the
  // preload (libs/common/src/tracing/register.ts), validated here so a typo fails the start.
  // Where spans go is OpenTelemetry's own variables: OTEL_EXPORTER_OTLP_ENDPOINT,
  // OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, ...
  @IsIn(['true', 'false'], { message: 'TRACING_ENABLED must be "true" or "false".' })
  TRACING_ENABLED = 'false';

  @Matches(/^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/, {
    message: 'FEE_PERCENT must be a decimal from 0 to 99.9999, e.g. "1" or "0.75".',
  })
  FEE_PERCENT = '1';

  @Matches(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/, {
    message: 'FEE_FIXED must be a decimal amount with at most 6 fractional digits, e.g. "0.1".',
  })
  FEE_FIXED = '0';

  // Bounded: a tolerance is for rounding in wallets and exchanges, not a discount.
  @Matches(/^([0-4](\.[0-9]{1,4})?|5(\.0{1,4})?)$/, {
    message: 'UNDERPAYMENT_TOLERANCE_PERCENT must be a decimal from 0 to 5, e.g. "0.1".',
  })
  UNDERPAYMENT_TOLERANCE_PERCENT = '0.1';

  // The percentage alone would let a 10,000,000 session be Paid 10,000 short at 0.1 %.
  @Matches(/^(0|[1-9][0-9]{0,2})(\.[0-9]{1,6})?$/, {
    message: 'UNDERPAYMENT_TOLERANCE_MAX must be a token amount from 0 to 999.999999, e.g. "1".',
  })
  UNDERPAYMENT_TOLERANCE_MAX = '1';

  @Matches(/^(all|none|[A-Z]+(,[A-Z]+)*)$/, {
    message:
      'WATCH_NETWORKS must be "all", "none" or a comma list of network names, e.g. "TRON,BSC".',
  })
  WATCH_NETWORKS = 'all';

  // Rate limits (docs/rate-limits.md): per merchant for the API, per client address for the hosted
  // page and for failed authentications; counted in Redis across every API process.
  /** GET requests per second per merchant. */
  @IsRateLimitValue()
  RATE_LIMIT_READS_PER_SECOND = 100;

  /** POST, PATCH and DELETE requests per second per merchant. */
  @IsRateLimitValue()
  RATE_LIMIT_WRITES_PER_SECOND = 100;

  /** Hosted checkout page requests (/checkout/...) per minute per client address. */
  @IsRateLimitValue()
  RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE = 600;

  /** Console sign-in, second factor, enrolment and invitation requests per minute per client
   * address (docs/console.md). */
  @IsRateLimitValue()
  RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE = 20;

  /** Hosted page streams (Server-Sent Events) open at once per client address, per API process. */
  @IsRateLimitValue()
  RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT = 10;

  /** Failed authentications per minute per client address; then it waits out a minute. */
  @IsRateLimitValue()
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE = 30;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'RATE_LIMIT_REDIS_URL must be a redis:// URL.' })
  RATE_LIMIT_REDIS_URL?: string;

  // Behind a load balancer every request comes from the balancer: without this, one client's
  // failures would block everyone (docs/rate-limits.md).
  @IsOptional()
  @IsTrustProxyValue({ message: TRUST_PROXY_MESSAGE })
  TRUST_PROXY?: string;

  @IntegerSetting({ min: 100, max: 600000 })
  DEPOSIT_SCAN_INTERVAL_MS = 3000;

  @IsOptional()
  @IsString({ message: 'TRONGRID_API_KEY must be a string.' })
  TRONGRID_API_KEY?: string;

  @Matches(DECIMAL_PERCENT, {
    message: 'PAYOUT_FEE_PERCENT must be a decimal from 0 to 99.9999, e.g. "0.5".',
  })
  PAYOUT_FEE_PERCENT = '0';

  @Matches(decimalMap(NETWORK_KEY), {
    message: 'PAYOUT_NETWORK_FEES must be a comma list of NETWORK=AMOUNT, e.g. "TRON=1,BSC=0.2".',
  })
  PAYOUT_NETWORK_FEES = '';

  @Matches(DECIMAL_AMOUNT, { message: 'PAYOUT_MIN_AMOUNT must be a decimal amount, e.g. "1".' })
  PAYOUT_MIN_AMOUNT = '1';

  @Matches(DECIMAL_AMOUNT, {
    message: 'PAYOUT_MAX_AMOUNT must be a decimal amount, e.g. "1000000".',
  })
  PAYOUT_MAX_AMOUNT = '1000000';

  @Matches(DECIMAL_AMOUNT, {
    message: 'PAYOUT_REVIEW_THRESHOLD must be a decimal amount, e.g. "10000".',
  })
  PAYOUT_REVIEW_THRESHOLD = '10000';

  @Matches(decimalMap(PAIR_KEY), {
    message:
      'PAYOUT_REVIEW_THRESHOLDS must be a comma list of NETWORK:CURRENCY=AMOUNT, e.g. "TRON:USDT=5000".',
  })
  PAYOUT_REVIEW_THRESHOLDS = '';

  @IsOptional()
  @IsString({ message: 'HOT_WALLETS_FILE must be a path to a JSON file of hot wallet keys.' })
  HOT_WALLETS_FILE?: string;

  @IsIn(['wait', 'fail'], { message: 'PAYOUT_HOT_WALLET_SHORTFALL must be "wait" or "fail".' })
  PAYOUT_HOT_WALLET_SHORTFALL: 'wait' | 'fail' = 'wait';

  @IntegerSetting({ min: 1000, max: 86400000 })
  PAYOUT_REPLACE_AFTER_MS = 120000;

  /** In-flight payouts the tracker looks at per tick and network (docs/payouts.md). */
  @IntegerSetting({ min: 2, max: 100000 })
  PAYOUT_TRACK_WINDOW = 500;

  @Matches(decimalMap(NETWORK_KEY), {
    message: 'PAYOUT_MAX_FEE_GWEI must be a comma list of NETWORK=GWEI, e.g. "ETHEREUM=300".',
  })
  PAYOUT_MAX_FEE_GWEI = '';

  @IsOptional()
  @IsString({
    message: 'TREASURY_FILE must be a path to a JSON file of per-network treasury settings.',
  })
  TREASURY_FILE?: string;

  @IsOptional()
  @IsString({ message: 'SWEEPER_KEYS_FILE must be a path to a JSON file of sweeper keys.' })
  SWEEPER_KEYS_FILE?: string;

  @IsOptional()
  @IsString({
    message: 'DEPOSIT_KEYS_FILE must be a path to a JSON file of deposit account xprvs.',
  })
  DEPOSIT_KEYS_FILE?: string;

  @IntegerSetting({ min: 100, max: 86400000 })
  TREASURY_SWEEP_INTERVAL_MS = 60000;

  @IntegerSetting({ min: 1000, max: 86400000 })
  TREASURY_RECONCILE_INTERVAL_MS = 300000;

  @IntegerSetting({ min: 1000, max: 604800000 })
  TREASURY_RECONCILE_FULL_INTERVAL_MS = 3600000;

  @IntegerSetting({ min: 100, max: 600000 })
  PAYOUT_TRACK_INTERVAL_MS = 1000;

  @IntegerSetting({ min: 100, max: 3600000 })
  PAYOUT_RETRY_DELAY_MS = 30000;

  @IntegerSetting({ min: 1, max: 64 })
  PAYOUT_SEND_CONCURRENCY = 8;

  @Matches(/^[1-9][0-9]{0,11}$/, {
    message: 'PAYOUT_TRON_FEE_LIMIT_SUN must be a whole number of sun, e.g. "30000000".',
  })
  PAYOUT_TRON_FEE_LIMIT_SUN = '30000000';

  // Loopback and private networks are for local development only; link-local and cloud metadata
  // addresses are refused even then (see docs/events-and-webhooks.md).
  @IsIn(['true', 'false'], { message: 'WEBHOOKS_ALLOW_PRIVATE_URLS must be "true" or "false".' })
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' | 'false' = 'false';

  @IntegerSetting({ min: 100, max: 60000 })
  WEBHOOK_TIMEOUT_MS = 15000;

  @IntegerSetting({ min: 10, max: 10000 })
  WEBHOOK_POLL_INTERVAL_MS = 100;

  @IntegerSetting({ min: 1, max: 2000 })
  WEBHOOK_CONCURRENCY = 512;

  @IntegerSetting({ min: 1, max: 500 })
  WEBHOOK_ENDPOINT_CONCURRENCY = 32;

  // AES-256-GCM key of the webhook signing secrets at rest (docs/events-and-webhooks.md), 32 bytes
  // as 64 hex digits (`openssl rand -hex 32`). Required in production; the sandbox falls back to
  // a fixed development key. Messages never repeat it.
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, {
    message:
      'WEBHOOK_SECRETS_KEY must be 64 hex digits (32 bytes), e.g. from `openssl rand -hex 32`.',
  })
  WEBHOOK_SECRETS_KEY?: string;

  // Per merchant: one merchant's slow endpoints (16 of them) could otherwise take every slot.
  @IntegerSetting({ min: 1, max: 2000 })
  WEBHOOK_MERCHANT_CONCURRENCY = 64;

  // An answer slower than this counts as a failure for the endpoint's circuit breaker.
  @IntegerSetting({ min: 100, max: 60000 })
  WEBHOOK_SLOW_RESPONSE_MS = 5000;

  @IntegerSetting({ min: 1, max: 200 })
  DATABASE_POOL_SIZE = 20;

  // The API's statements only (docs/operations.md): one that runs longer is cancelled and its
  // request answers 503, instead of holding a connection and the database for as long as it
  // takes (a list with include_total over a huge merchant). 0 = no limit.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_STATEMENT_TIMEOUT_MS = 15000;

  // The API's exact list totals (`include_total=true`) only: a count over a huge merchant is
  // cancelled after this long and the list answers 200 with `X-Total-Count-At-Least` instead of
  // failing (docs/pagination.md). 0 = only DATABASE_STATEMENT_TIMEOUT_MS applies.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_LIST_TOTAL_TIMEOUT_MS = 2000;

  // The API's connections only: one left idle inside a transaction this long (a request stuck
  // between two statements) is closed by PostgreSQL, releasing its locks. 0 = no limit.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS = 60000;

  // The API's pool only: how long a request waits for a connection (a free one of the pool, or a
  // new one to PostgreSQL) before it answers 503 instead of hanging. 0 = forever.
  @IntegerSetting({ min: 0, max: 600000, minMeans: 'none' })
  DATABASE_CONNECT_TIMEOUT_MS = 10000;

  // Retention (docs/operations.md, "Data retention"): the worker deletes older rows on a schedule,
  // in batches. 0 = keep forever. Idempotency keys have none: their 24 hours are the API's contract.
  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_WEBHOOK_ATTEMPTS_DAYS = 30;

  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_EVENTS_DAYS = 90;

  // The console's request log (what the console shows is what is kept).
  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_REQUEST_LOG_DAYS = 30;

  // Rows per DELETE statement: each is its own short transaction, so locks stay brief.
  @IntegerSetting({ min: 100, max: 100000 })
  RETENTION_BATCH_SIZE = 1000;

  // Operations (docs/operations.md). When set, /metrics wants `Authorization: Bearer <token>`.
  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'METRICS_TOKEN must be at least 16 characters, no spaces.' })
  METRICS_TOKEN?: string;

  @IntegerSetting({ min: 0, max: 65535, minMeans: 'off' })
  WORKER_METRICS_PORT = 9464;

  // Below the orchestrator's grace period (Kubernetes: 30 s), so the process ends on its own.
  @IntegerSetting({ min: 1000, max: 600000 })
  SHUTDOWN_TIMEOUT_MS = 25000;

  // Longer than a load balancer's idle timeout (AWS ALB and nginx: 60 s): a balancer reusing a
  // connection the API has just closed answers the client 502. Node's own default is 5 s.
  @IntegerSetting({ min: 1000, max: 600000 })
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65000;

  // Sized for a burst: at 1,000 sessions a second, 20 s of creation takes 20,000 addresses per
  // family without the worker deriving any (derivation competes with the API for CPU).
  @IntegerSetting({ min: 10, max: 1000000 })
  PAY_ADDRESS_POOL_TARGET = 60000;

  /** Below this many unclaimed addresses the worker tops the pool up; default a sixth of the target. */
  @IsOptional()
  @IntegerSetting({ min: 1, max: 1000000 })
  PAY_ADDRESS_POOL_LOW_WATERMARK?: number;

  // The merchant console (docs/console.md): a session unused this long ends (the absolute limit
  // is 12 hours whatever this says).
  @IntegerSetting({ min: 5, max: 720 })
  CONSOLE_SESSION_IDLE_MINUTES = 30;
}

// Production must be told where everything is; the sandbox may fall back to local defaults.
const REQUIRED_IN_PRODUCTION = [
  'DATABASE_URL',
  'REDIS_URL',
  'PUBLIC_URL',
  'HD_EVM_XPUB',
  'HD_TRON_XPUB',
  'WEBHOOK_SECRETS_KEY',
] as const;

/** The sandbox's key of webhook secrets at rest; public, so production refuses it. */
export const DEVELOPMENT_WEBHOOK_SECRETS_KEY =
  '646576656c6f706d656e742d6f6e6c792d776562686f6f6b2d73656372657473';

export class ConfigurationError extends Error {}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Fiat prices need a named rate source in production: the built-in table is indicative, for the
 * sandbox only. One source at a time, read more often than its rates may age, and over https
 * (or a sidecar on this host), since whoever can change the rates can change every price.
 */
function rateSourceProblems(env: EnvironmentVariables): string[] {
  const problems: string[] = [];
  if (env.FX_RATES_FILE && env.FX_RATES_URL) {
    problems.push('FX_RATES_FILE and FX_RATES_URL are both set; use one rate source.');
  }
  if (env.APP_ENV === 'production' && !env.FX_RATES_FILE && !env.FX_RATES_URL) {
    problems.push(
      'FX_RATES_URL or FX_RATES_FILE is required when APP_ENV=production ' +
        '(the built-in exchange rates are indicative, for the sandbox only).',
    );
  }
  const { FX_RATES_REFRESH_SECONDS: refresh, FX_RATES_MAX_AGE_SECONDS: maxAge } = env;
  // Compared only when both are numbers (a bad value has its own message).
  if (typeof refresh === 'number' && typeof maxAge === 'number' && refresh >= maxAge) {
    problems.push(
      'FX_RATES_REFRESH_SECONDS must be less than FX_RATES_MAX_AGE_SECONDS, or the rates go ' +
        'stale between two reads.',
    );
  }
  if (env.APP_ENV === 'production' && env.FX_RATES_URL && URL.canParse(env.FX_RATES_URL)) {
    const url = new URL(env.FX_RATES_URL);
    if (url.protocol !== 'https:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      problems.push('FX_RATES_URL must be https when APP_ENV=production (or on this host).');
    }
  }
  return problems;
}

/**
 * Settings for development that must never reach production: each would open the service to
 * anyone who can reach it (webhooks to this host's network, metrics to the world).
 */
function productionSafetyProblems(env: EnvironmentVariables): string[] {
  if (env.APP_ENV !== 'production') return [];
  const problems: string[] = [];
  if (env.WEBHOOKS_ALLOW_PRIVATE_URLS === 'true') {
    problems.push(
      'WEBHOOKS_ALLOW_PRIVATE_URLS=true is refused when APP_ENV=production: it lets merchants ' +
        'send webhooks to loopback and private addresses (local development only). Unset it.',
    );
  }
  if (!env.METRICS_TOKEN) {
    problems.push(
      'METRICS_TOKEN is required when APP_ENV=production: without it /metrics (API and worker) ' +
        'is open to anyone who can reach it.',
    );
  }
  const refundDelay = env.REFUND_DESTINATION_DELAY_MINUTES;
  if (typeof refundDelay === 'number' && refundDelay < 1) {
    problems.push(
      'REFUND_DESTINATION_DELAY_MINUTES below 1 is refused when APP_ENV=production: it is the ' +
        "merchant's window to cancel a refund before the address given with the customer's link " +
        'is sent (docs/refunds.md). Set 1 to 1440, or unset it for 15.',
    );
  }
  return problems;
}

/** Parses and checks the environment, or throws one error listing every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== ''));
  const env = plainToInstance(EnvironmentVariables, present);
  const problems = validateSync(env, { skipMissingProperties: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}),
  );
  if (env.APP_ENV === 'production') {
    for (const name of REQUIRED_IN_PRODUCTION) {
      if (!env[name]) problems.push(`${name} is required when APP_ENV=production.`);
    }
    if (env.WEBHOOK_SECRETS_KEY?.toLowerCase() === DEVELOPMENT_WEBHOOK_SECRETS_KEY) {
      problems.push('WEBHOOK_SECRETS_KEY must not be the development key when APP_ENV=production.');
    }
  }
  problems.push(...rateSourceProblems(env));
  problems.push(...productionSafetyProblems(env));
  if (problems.length) {
    throw new ConfigurationError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return env;
}
