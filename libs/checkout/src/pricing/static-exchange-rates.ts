import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import { ExchangeRateProvider } from './exchange-rate.provider';

// Indicative defaults (USD per unit); deployments set real figures with FX_RATES_FILE.
// USD and the USD stablecoins are 1:1 by definition of this service, not by a quote.
export const DEFAULT_USD_RATES: Record<string, string> = {
  USD: '1',
  USDT: '1',
  USDC: '1',
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

const RATE_SHAPE = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,12})?$/;

/** Rates from a fixed table, optionally replaced by a JSON file `{ "EUR": "1.08", ... }`. */
export class StaticExchangeRates implements ExchangeRateProvider {
  private readonly rates: Map<string, Decimal>;

  constructor(table: Record<string, string>) {
    this.rates = new Map();
    for (const [currency, rate] of Object.entries(table)) {
      if (!/^[A-Z]{3,5}$/.test(currency) || !RATE_SHAPE.test(rate) || new Decimal(rate).isZero()) {
        throw new Error(
          `FX_RATES_FILE: bad rate ${JSON.stringify(currency)}: ${JSON.stringify(rate)}`,
        );
      }
      this.rates.set(currency, new Decimal(rate));
    }
    // The pegs hold even when a file forgets them.
    for (const pegged of ['USD', 'USDT', 'USDC']) this.rates.set(pegged, new Decimal(1));
  }

  static fromFile(path: string | undefined): StaticExchangeRates {
    if (!path) return new StaticExchangeRates(DEFAULT_USD_RATES);
    let table: unknown;
    try {
      table = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`FX_RATES_FILE: cannot read ${path}: ${(error as Error).message}`);
    }
    if (!table || typeof table !== 'object' || Array.isArray(table)) {
      throw new Error('FX_RATES_FILE must hold a JSON object of currency code to decimal string.');
    }
    return new StaticExchangeRates(table as Record<string, string>);
  }

  usdPerUnit(currency: string): Decimal | undefined {
    return this.rates.get(currency);
  }

  supportedCurrencies(): string[] {
    return [...this.rates.keys()].sort();
  }
}
