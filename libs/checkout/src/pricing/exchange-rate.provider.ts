import Decimal from 'decimal.js';

/**
 * Where fiat rates come from. The default reads a configured static table; a live source
 * (an FX API) implements the same interface and replaces it in the module.
 */
export interface ExchangeRateProvider {
  /** USD per one unit of `currency`, or undefined when the currency is not priced. */
  usdPerUnit(currency: string): Decimal | undefined;
  supportedCurrencies(): string[];
}

export const EXCHANGE_RATE_PROVIDER = Symbol('EXCHANGE_RATE_PROVIDER');
