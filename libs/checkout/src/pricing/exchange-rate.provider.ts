import Decimal from 'decimal.js';

/** The answer for one pricing currency at one moment. */
export type RateLookup =
  /** A rate the source vouched for at `asOf` (null: a table with no date, sandbox only). */
  | { status: 'current'; usdPerUnit: Decimal; asOf: Date | null }
  /** The source does not price this currency. */
  | { status: 'unsupported' }
  /**
   * The currency cannot be priced now: its rates are older than the staleness bound, or none
   * were loaded yet. Never a guess: the caller refuses the request (503).
   */
  | { status: 'unavailable'; reason: string; retryAfterSeconds: number };

/**
 * Where fiat rates come from: a JSON file (FX_RATES_FILE), an HTTP endpoint (FX_RATES_URL), or
 * in the sandbox a built-in indicative table. USD and the USD stablecoins are 1:1 by definition
 * of the service and never asked for (see PricingService).
 */
export interface ExchangeRateProvider {
  /** USD per one unit of `currency` as of `now`, or why there is none. */
  lookup(currency: string, now: Date): RateLookup;
  /** The currencies the last good rates priced (empty before any were loaded). */
  supportedCurrencies(): string[];
}

export const EXCHANGE_RATE_PROVIDER = Symbol('EXCHANGE_RATE_PROVIDER');
