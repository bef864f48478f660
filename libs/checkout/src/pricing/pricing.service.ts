import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { ApiException, ErrorCode } from '@app/common';
import { EXCHANGE_RATE_PROVIDER, ExchangeRateProvider } from './exchange-rate.provider';
import { PEGGED_CURRENCIES } from './rates-document';

export const SETTLEMENT_FRACTION_DIGITS = 6;
export const RATE_FRACTION_DIGITS = 8;
export const MIN_SESSION_AMOUNT = new Decimal('0.01');
export const MAX_SESSION_AMOUNT = new Decimal('10000000');

export interface Quote {
  /** Settlement amount in the stablecoin, rounded half-up to 6 fractional digits. */
  amount: Decimal;
  /** Stablecoin units per one unit of the pricing currency, rounded to 8 fractional digits. */
  exchangeRate: Decimal;
}

const ONE = new Decimal(1);

/** Converts a price in the pricing currency into the stablecoin amount the payer must send. */
@Injectable()
export class PricingService {
  constructor(@Inject(EXCHANGE_RATE_PROVIDER) private readonly rates: ExchangeRateProvider) {}

  quote(pricingAmount: string, pricingCurrency: string, now = new Date()): Quote {
    const usdPerUnit = this.usdPerUnit(pricingCurrency, now);
    const exchangeRate = usdPerUnit.toDecimalPlaces(RATE_FRACTION_DIGITS, Decimal.ROUND_HALF_UP);
    // Convert with the full rate, then round once, so the shown rate never compounds an error.
    const amount = new Decimal(pricingAmount)
      .times(usdPerUnit)
      .toDecimalPlaces(SETTLEMENT_FRACTION_DIGITS, Decimal.ROUND_HALF_UP);
    if (amount.lessThan(MIN_SESSION_AMOUNT) || amount.greaterThan(MAX_SESSION_AMOUNT)) {
      throw ApiException.invalid(
        'pricing_amount',
        `pricing_amount converts to ${amount.toFixed()}; a session must be between ${MIN_SESSION_AMOUNT.toFixed()} and ${MAX_SESSION_AMOUNT.toFixed()} in the settlement currency.`,
      );
    }
    return { amount, exchangeRate };
  }

  /** Every pricing currency: the pegs and what the rate source priced last. */
  supportedCurrencies(): string[] {
    return [...new Set([...PEGGED_CURRENCIES, ...this.rates.supportedCurrencies()])].sort();
  }

  /**
   * USD per unit. The pegs never depend on the rate source; a fiat rate the source cannot vouch
   * for now (too old, or none yet) is a 503 naming the currency, never an old or guessed price.
   */
  private usdPerUnit(currency: string, now: Date): Decimal {
    if (PEGGED_CURRENCIES.includes(currency)) return ONE;
    const lookup = this.rates.lookup(currency, now);
    switch (lookup.status) {
      case 'current':
        return lookup.usdPerUnit;
      case 'unavailable':
        throw new ApiException(ErrorCode.ServiceUnavailable, lookup.reason, 'pricing_currency', {
          'Retry-After': String(lookup.retryAfterSeconds),
        });
      case 'unsupported':
        throw ApiException.invalid(
          'pricing_currency',
          `pricing_currency '${currency}' is not supported. Supported: ${this.supportedCurrencies().join(', ')}.`,
        );
    }
  }
}
