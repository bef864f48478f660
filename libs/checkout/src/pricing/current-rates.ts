import { RateLookup } from './exchange-rate.provider';
import { RatesDocument } from './rates-document';

export interface StalenessBound {
  /** Rates older than this are refused; null: never (undated sandbox tables only). */
  maxAgeMs: number | null;
  /** What a refused request is told to wait (the source's refresh interval). */
  retryAfterSeconds: number;
}

/**
 * The last good rates of one source and what they answer at a given moment: the rate while it is
 * within the bound, `unavailable` once it is older (never the old figure), `unsupported` for a
 * currency the source does not price.
 */
export class CurrentRates {
  private document: RatesDocument | null = null;

  constructor(
    /** How messages name the source, e.g. "FX_RATES_URL". Never the URL: it may carry a key. */
    private readonly source: string,
    private readonly bound: StalenessBound,
  ) {}

  get asOf(): Date | null {
    return this.document?.asOf ?? null;
  }

  get loaded(): boolean {
    return this.document !== null;
  }

  /** Takes a newer document; an older one (a lagging replica) does not replace what is known. */
  offer(document: RatesDocument): boolean {
    const current = this.document?.asOf;
    if (current && document.asOf && document.asOf.getTime() < current.getTime()) return false;
    this.document = document;
    return true;
  }

  /** No rates, or rates older than the bound (an undated document under a bound is stale too). */
  isStale(now: Date): boolean {
    if (!this.document) return true;
    if (this.bound.maxAgeMs === null) return false;
    const { asOf } = this.document;
    return asOf === null || now.getTime() - asOf.getTime() > this.bound.maxAgeMs;
  }

  lookup(currency: string, now: Date): RateLookup {
    const retryAfterSeconds = this.bound.retryAfterSeconds;
    if (!this.document) {
      return {
        status: 'unavailable',
        reason:
          `No exchange rate for ${currency} is available: ${this.source} has not provided ` +
          `valid rates since the service started. ${ALTERNATIVE}`,
        retryAfterSeconds,
      };
    }
    const usdPerUnit = this.document.usdPerUnit.get(currency);
    if (!usdPerUnit) return { status: 'unsupported' };
    if (this.isStale(now)) {
      return {
        status: 'unavailable',
        reason:
          `The exchange rate for ${currency} is out of date (as of ` +
          `${this.document.asOf?.toISOString() ?? 'unknown'}; rates older than ` +
          `${Math.floor((this.bound.maxAgeMs ?? 0) / 1000)} s are refused). ${ALTERNATIVE}`,
        retryAfterSeconds,
      };
    }
    return { status: 'current', usdPerUnit, asOf: this.document.asOf };
  }

  supportedCurrencies(): string[] {
    return [...(this.document?.usdPerUnit.keys() ?? [])].sort();
  }
}

const ALTERNATIVE = 'Try again later, or price the session in USD, USDT or USDC.';
