import { AppEnv, validateEnvironment } from './environment-variables';

export interface AppConfig {
  env: AppEnv;
  livemode: boolean;
  port: number;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  publicUrl: string;
  hdEvmXpub?: string;
  hdTronXpub?: string;
  devSecretsDir: string;
  networksFile?: string;
  fxRatesFile?: string;
  sessionLifetimeMinutes: number;
  logLevel: string;
  /** Default fee rule: percent of the amount received plus a fixed amount per paid session. */
  feePercent: string;
  feeFixed: string;
  underpaymentTolerancePercent: string;
  /** Networks the deposit watcher scans; 'all' expands to every network of the registry. */
  watchNetworks: 'all' | string[];
  depositScanIntervalMs: number;
  trongridApiKey?: string;
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
    redisUrl: env.REDIS_URL ?? DEFAULT_REDIS_URL,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    hdEvmXpub: env.HD_EVM_XPUB,
    hdTronXpub: env.HD_TRON_XPUB,
    devSecretsDir: env.DEV_SECRETS_DIR,
    networksFile: env.NETWORKS_FILE,
    fxRatesFile: env.FX_RATES_FILE,
    sessionLifetimeMinutes: env.SESSION_LIFETIME_MINUTES,
    logLevel: env.LOG_LEVEL,
    feePercent: env.FEE_PERCENT,
    feeFixed: env.FEE_FIXED,
    underpaymentTolerancePercent: env.UNDERPAYMENT_TOLERANCE_PERCENT,
    watchNetworks:
      env.WATCH_NETWORKS === 'all'
        ? 'all'
        : env.WATCH_NETWORKS === 'none'
          ? []
          : env.WATCH_NETWORKS.split(','),
    depositScanIntervalMs: env.DEPOSIT_SCAN_INTERVAL_MS,
    trongridApiKey: env.TRONGRID_API_KEY,
  };
}
