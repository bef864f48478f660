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
import { OperationVariables } from './operation-variables';
import { IsRateLimitValue } from '../rate-limit/rate-limit-value.validator';
import { IsTrustProxyValue, TRUST_PROXY_MESSAGE } from '../rate-limit/trust-proxy';

export const APP_ENVS = ['sandbox', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

const toDecimalNumber = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : value;
const REFUND_DELAY_MESSAGE =
  'REFUND_DESTINATION_DELAY_MINUTES must be a number of minutes from 0 to 1440 (at most 2 decimals).';

/**
 * Every variable the processes read. Each message names its variable so a bad start is obvious.
 * The core and rate-limit variables are here; the other areas are base classes, one chain in the
 * order the variables were listed (ChainVariables, WebhookVariables, OperationVariables): on a
 * bad start class-validator lists this class's own problems first, then the inherited ones in the
 * order their classes were declared, so the message keeps the variables' order.
 */
export class EnvironmentVariables extends OperationVariables {
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
