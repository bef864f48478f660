import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { ApiException } from '@app/common';
import { EXCHANGE_RATE_PROVIDER, ExchangeRateProvider } from './exchange-rate.provider';

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

/** Converts a price in the pricing currency into the stablecoin amount the payer must send. */
@Injectable()
export class PricingService {
  constructor(@Inject(EXCHANGE_RATE_PROVIDER) private readonly rates: ExchangeRateProvider) {}

  quote(pricingAmount: string, pricingCurrency: string): Quote {
    const usdPerUnit = this.rates.usdPerUnit(pricingCurrency);
    if (!usdPerUnit) {
      throw ApiException.invalid(
        'pricing_currency',
        `pricing_currency '${pricingCurrency}' is not supported. Supported: ${this.rates.supportedCurrencies().join(', ')}.`,
      );
    }
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
}
