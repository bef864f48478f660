import { CurrentRates } from './current-rates';
import { ExchangeRateProvider, RateLookup } from './exchange-rate.provider';
import { parseRatesDocument } from './rates-document';

// Indicative defaults (USD per unit) for the sandbox only: production refuses to start without
// FX_RATES_FILE or FX_RATES_URL. USD and the USD stablecoins are 1:1 by definition of the
// service (PricingService), not by a quote.
export const DEFAULT_USD_RATES: Record<string, string> = {
  EUR: '1.08',
  GBP: '1.27',
  CHF: '1.13',
  CAD: '0.73',
  AUD: '0.66',
  JPY: '0.0067',
  CNY: '0.138',
  INR: '0.012',
  BRL: '0.18',
  MXN: '0.058',
  SGD: '0.75',
  HKD: '0.128',
  TRY: '0.029',
  VND: '0.0000393',
};

/** A fixed, undated table that never goes stale: the sandbox default, and tests. */
export class StaticExchangeRates implements ExchangeRateProvider {
  private readonly rates: CurrentRates;

  constructor(table: Record<string, string>, source = 'the built-in rate table') {
    this.rates = new CurrentRates(source, { maxAgeMs: null, retryAfterSeconds: 60 });
    this.rates.offer(parseRatesDocument(table, source, { allowUndated: true, now: new Date() }));
  }

  lookup(currency: string, now: Date): RateLookup {
    return this.rates.lookup(currency, now);
  }

  supportedCurrencies(): string[] {
    return this.rates.supportedCurrencies();
  }
}
