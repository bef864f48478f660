import {
  AppEnv,
  DEVELOPMENT_WEBHOOK_SECRETS_KEY,
  validateEnvironment,
} from './environment-variables';
import { parseTrustProxy, TrustProxySetting } from '../rate-limit/trust-proxy';

export interface AppConfig {
  env: AppEnv;
  livemode: boolean;
  port: number;
  databaseUrl: string;
  databasePoolSize: number;
  /** Statement timeout of the API's database connections; 0 = none. The worker and CLI have none. */
  databaseStatementTimeoutMs: number;
  /** The API's exact list totals (`include_total`); a timeout there degrades the total. 0 = none. */
  databaseListTotalTimeoutMs: number;
  /** The API's connections: idle in a transaction this long, closed by PostgreSQL. 0 = none. */
  databaseIdleInTransactionTimeoutMs: number;
  /** The API's pool: longest wait for a connection before a 503. 0 = none. */
  databaseConnectTimeoutMs: number;
  retention: RetentionConfig;
  redisUrl: string;
  publicUrl: string;
  hdEvmXpub?: string;
  hdTronXpub?: string;
  devSecretsDir: string;
  networksFile?: string;
  /** Rate sources (at most one); production requires one. See docs/configuration-checks.md. */
  fxRatesFile?: string;
  fxRatesUrl?: string;
  fxRatesRefreshSeconds: number;
  /** Rates older than this are refused: fiat-priced sessions answer 503 instead. */
  fxRatesMaxAgeSeconds: number;
  sessionLifetimeMinutes: number;
  /** A refund waiting for its address (requires_destination) is canceled after this long. */
  refundDestinationExpiryMinutes: number;
  /**
   * An address the customer gave on the hosted page waits this long before its refund may be
   * signed (the merchant can cancel meanwhile); 0: sent at once.
   */
  refundDestinationDelayMinutes: number;
  logLevel: string;
  /** Default fee rule: percent of the amount received plus a fixed amount per paid session. */
  feePercent: string;
  feeFixed: string;
  underpaymentTolerancePercent: string;
  /** ...but never more than this many tokens short. */
  underpaymentToleranceMax: string;
  /** Networks the deposit watcher scans; 'all' expands to every network of the registry. */
  watchNetworks: 'all' | string[];
  depositScanIntervalMs: number;
  trongridApiKey?: string;
  payouts: PayoutConfig;
  treasury: TreasuryConfig;
  webhooks: WebhookConfig;
  operations: OperationsConfig;
  rateLimits: RateLimitConfig;
  /** Express `trust proxy`: which peers may name the client in X-Forwarded-For. */
  trustProxy: TrustProxySetting;
  payAddressPool: PayAddressPoolConfig;
  console: ConsoleConfig;
}

/** The merchant console's sessions (docs/console.md). */
export interface ConsoleConfig {
  /** A session unused this long ends; any request refreshes it (at most once a minute). */
  sessionIdleMinutes: number;
}

/** What the worker deletes, and when (docs/operations.md, "Data retention"). 0 days = keep. */
export interface RetentionConfig {
  /** Webhook attempts (the delivery log) older than this many days... */
  webhookAttemptsDays: number;
  /** ...events (with their finished deliveries), never an object's latest nor one still due... */
  eventsDays: number;
  /** ...the console's request log... */
  requestLogDays: number;
  /** ...rows per DELETE statement. */
  batchSize: number;
}

/** Sweeps and reconciliation (docs/treasury.md). Keys are read by the worker only. */
export interface TreasuryConfig {
  /** Per-network settings: treasury address, hot wallet target, sweep policy, delegate. */
  file?: string;
  /** Per-network sweeper private keys (the TRON one also stakes and lends energy). */
  sweeperKeysFile?: string;
  /** Account-level xprvs of the deposit addresses; only a worker that sweeps holds them. */
  depositKeysFile?: string;
  sweepIntervalMs: number;
  /** Incremental reconciliation (addresses that moved since the last run)... */
  reconcileIntervalMs: number;
  /** ...and a full one over every controlled address. */
  reconcileFullIntervalMs: number;
}

/** Pre-derived pay addresses the worker keeps ready (see docs/decisions.md, pay-address pool). */
export interface PayAddressPoolConfig {
  /** Unclaimed addresses per chain family after a refill... */
  targetSize: number;
  /** ...which starts when fewer than this many are left. */
  lowWatermark: number;
}

/** Request limits (see docs/rate-limits.md); counted in Redis, shared by every API process. */
export interface RateLimitConfig {
  /** Per merchant (and environment), per second: GET requests... */
  readsPerSecond: number;
  /** ...and POST, PATCH, DELETE requests, each in their own bucket. */
  writesPerSecond: number;
  /** Hosted checkout page, per client address, per minute. */
  checkoutPagePerMinute: number;
  /** The console's routes before a full session (sign-in, second factor, enrolment,
   * invitations), per client address, per minute: each may cost an argon2 check. */
  consoleSignInPerMinute: number;
  /** Hosted page streams open at once per client address in one API process (a count of open
   * connections, not of requests: kept in the process that holds them). */
  checkoutStreamsPerClient: number;
  /** Failed authentications per client address per minute before it is refused for a minute. */
  failedAuthPerMinute: number;
  redisUrl: string;
}

/** Metrics and shutdown (see docs/operations.md). */
export interface OperationsConfig {
  /** Bearer token /metrics asks for; open when unset. */
  metricsToken?: string;
  /** The worker's own /metrics listener; 0 = none. */
  workerMetricsPort: number;
  /** How long a SIGTERM waits for work in flight before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** How long the API keeps an idle client connection open (above a load balancer's). */
  httpKeepAliveTimeoutMs: number;
}

/** Webhook delivery (see docs/events-and-webhooks.md). */
export interface WebhookConfig {
  /** Loopback and private addresses as targets (development only). */
  allowPrivateUrls: boolean;
  timeoutMs: number;
  /** How often the worker looks for due deliveries when it has nothing to do. */
  pollIntervalMs: number;
  /** Requests in flight per worker... */
  concurrency: number;
  /** ...and per endpoint, so one slow endpoint cannot take every slot... */
  endpointConcurrency: number;
  /** ...and per merchant, so one merchant's slow endpoints cannot either. */
  merchantConcurrency: number;
  /** An answer slower than this counts as a failure for the endpoint's circuit breaker. */
  slowResponseMs: number;
  /** AES-256-GCM key of the signing secrets at rest (32 bytes). */
  secretsKey: Buffer;
}

/** Payout rules and processing settings (see docs/decisions.md, Payouts). */
export interface PayoutConfig {
  /** Default percent fee per payout; a merchant's own rule wins. */
  feePercent: string;
  /** Fixed fee per network overriding the built-in defaults. */
  networkFees: Record<string, string>;
  minAmount: string;
  maxAmount: string;
  /** Payouts above this amount wait for an operator's review... */
  reviewThreshold: string;
  /** ...unless a "NETWORK:CURRENCY" threshold is set. */
  reviewThresholds: Record<string, string>;
  /** JSON file of hot wallet private keys per network; read by the worker only. */
  hotWalletsFile?: string;
  /** When the hot wallet cannot cover a payout: wait (and retry) or fail it. */
  hotWalletShortfall: 'wait' | 'fail';
  replaceAfterMs: number;
  /**
   * In-flight payouts looked at per tracker tick and network: on EVM each wallet's lowest unmined
   * nonces first, the rest walked by a cursor over ticks.
   */
  trackWindow: number;
  /** Cap of maxFeePerGas per network, in gwei, overriding the built-in defaults. */
  maxFeeGwei: Record<string, string>;
  trackIntervalMs: number;
  retryDelayMs: number;
  sendConcurrency: number;
  tronFeeLimitSun: string;
}

/** "A=1,B=2" -> {A: "1", B: "2"}; the format was checked by the environment validation. */
function parseDecimalMap(value: string): Record<string, string> {
  if (!value) return {};
  return Object.fromEntries(value.split(',').map((pair) => pair.split('=') as [string, string]));
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/payments';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The typed configuration every module reads; built once per process from the environment. */
export function loadAppConfig(raw: Record<string, unknown> = process.env): AppConfig {
  const env = validateEnvironment(raw);
  return {
    env: env.APP_ENV,
    livemode: env.APP_ENV === 'production',
    port: env.PORT,
    databaseUrl: env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseListTotalTimeoutMs: env.DATABASE_LIST_TOTAL_TIMEOUT_MS,
    databaseIdleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    retention: {
      webhookAttemptsDays: env.RETENTION_WEBHOOK_ATTEMPTS_DAYS,
      eventsDays: env.RETENTION_EVENTS_DAYS,
      requestLogDays: env.RETENTION_REQUEST_LOG_DAYS,
      batchSize: env.RETENTION_BATCH_SIZE,
    },
    redisUrl: env.REDIS_URL ?? DEFAULT_REDIS_URL,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    hdEvmXpub: env.HD_EVM_XPUB,
    hdTronXpub: env.HD_TRON_XPUB,
    devSecretsDir: env.DEV_SECRETS_DIR,
    networksFile: env.NETWORKS_FILE,
    fxRatesFile: env.FX_RATES_FILE,
    fxRatesUrl: env.FX_RATES_URL,
    fxRatesRefreshSeconds: env.FX_RATES_REFRESH_SECONDS,
    fxRatesMaxAgeSeconds: env.FX_RATES_MAX_AGE_SECONDS,
    sessionLifetimeMinutes: env.SESSION_LIFETIME_MINUTES,
    refundDestinationExpiryMinutes: env.REFUND_DESTINATION_EXPIRY_MINUTES,
    refundDestinationDelayMinutes:
      env.REFUND_DESTINATION_DELAY_MINUTES ?? (env.APP_ENV === 'production' ? 15 : 1),
    logLevel: env.LOG_LEVEL,
    feePercent: env.FEE_PERCENT,
    feeFixed: env.FEE_FIXED,
    underpaymentTolerancePercent: env.UNDERPAYMENT_TOLERANCE_PERCENT,
    underpaymentToleranceMax: env.UNDERPAYMENT_TOLERANCE_MAX,
    watchNetworks:
      env.WATCH_NETWORKS === 'all'
        ? 'all'
        : env.WATCH_NETWORKS === 'none'
          ? []
          : env.WATCH_NETWORKS.split(','),
    depositScanIntervalMs: env.DEPOSIT_SCAN_INTERVAL_MS,
    trongridApiKey: env.TRONGRID_API_KEY,
    payouts: {
      feePercent: env.PAYOUT_FEE_PERCENT,
      networkFees: parseDecimalMap(env.PAYOUT_NETWORK_FEES),
      minAmount: env.PAYOUT_MIN_AMOUNT,
      maxAmount: env.PAYOUT_MAX_AMOUNT,
      reviewThreshold: env.PAYOUT_REVIEW_THRESHOLD,
      reviewThresholds: parseDecimalMap(env.PAYOUT_REVIEW_THRESHOLDS),
      hotWalletsFile: env.HOT_WALLETS_FILE,
      hotWalletShortfall: env.PAYOUT_HOT_WALLET_SHORTFALL,
      replaceAfterMs: env.PAYOUT_REPLACE_AFTER_MS,
      trackWindow: env.PAYOUT_TRACK_WINDOW,
      maxFeeGwei: parseDecimalMap(env.PAYOUT_MAX_FEE_GWEI),
      trackIntervalMs: env.PAYOUT_TRACK_INTERVAL_MS,
      retryDelayMs: env.PAYOUT_RETRY_DELAY_MS,
      sendConcurrency: env.PAYOUT_SEND_CONCURRENCY,
      tronFeeLimitSun: env.PAYOUT_TRON_FEE_LIMIT_SUN,
    },
    treasury: {
      file: env.TREASURY_FILE,
      sweeperKeysFile: env.SWEEPER_KEYS_FILE,
      depositKeysFile: env.DEPOSIT_KEYS_FILE,
      sweepIntervalMs: env.TREASURY_SWEEP_INTERVAL_MS,
      reconcileIntervalMs: env.TREASURY_RECONCILE_INTERVAL_MS,
      reconcileFullIntervalMs: env.TREASURY_RECONCILE_FULL_INTERVAL_MS,
    },
    payAddressPool: {
      targetSize: env.PAY_ADDRESS_POOL_TARGET,
      lowWatermark: Math.min(
        env.PAY_ADDRESS_POOL_LOW_WATERMARK ?? Math.ceil(env.PAY_ADDRESS_POOL_TARGET / 6),
        env.PAY_ADDRESS_POOL_TARGET,
      ),
    },
    rateLimits: {
      readsPerSecond: env.RATE_LIMIT_READS_PER_SECOND,
      writesPerSecond: env.RATE_LIMIT_WRITES_PER_SECOND,
      checkoutPagePerMinute: env.RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE,
      consoleSignInPerMinute: env.RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE,
      checkoutStreamsPerClient: env.RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT,
      failedAuthPerMinute: env.RATE_LIMIT_FAILED_AUTH_PER_MINUTE,
      redisUrl: env.RATE_LIMIT_REDIS_URL ?? env.REDIS_URL ?? DEFAULT_REDIS_URL,
    },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    operations: {
      metricsToken: env.METRICS_TOKEN,
      workerMetricsPort: env.WORKER_METRICS_PORT,
      shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      httpKeepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    console: { sessionIdleMinutes: env.CONSOLE_SESSION_IDLE_MINUTES },
    webhooks: {
      allowPrivateUrls: env.WEBHOOKS_ALLOW_PRIVATE_URLS === 'true',
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
      endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
      merchantConcurrency: env.WEBHOOK_MERCHANT_CONCURRENCY,
      slowResponseMs: env.WEBHOOK_SLOW_RESPONSE_MS,
      secretsKey: Buffer.from(env.WEBHOOK_SECRETS_KEY ?? DEVELOPMENT_WEBHOOK_SECRETS_KEY, 'hex'),
    },
  };
}
