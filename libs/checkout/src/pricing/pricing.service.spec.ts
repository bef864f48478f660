import Decimal from 'decimal.js';
import { ApiException, ErrorCode } from '@app/common';
import { ExchangeRateProvider, RateLookup } from './exchange-rate.provider';
import { PricingService } from './pricing.service';
import { StaticExchangeRates } from './static-exchange-rates';

describe('PricingService', () => {
  const pricing = new PricingService(
    new StaticExchangeRates({ EUR: '1.08', JPY: '0.0067', XAU: '0.123456789' }),
  );

  it('prices USD and the stablecoins 1:1', () => {
    for (const currency of ['USD', 'USDT', 'USDC']) {
      const quote = pricing.quote('10.25', currency);
      expect(quote.amount.toFixed()).toBe('10.25');
      expect(quote.exchangeRate.toFixed(8)).toBe('1.00000000');
    }
  });

  it('converts other currencies and rounds half-up to 6 digits', () => {
    expect(pricing.quote('100', 'EUR').amount.toFixed()).toBe('108');
    expect(pricing.quote('1234', 'JPY').amount.toFixed()).toBe('8.2678');
    expect(pricing.quote('1.000005', 'XAU').amount.toFixed()).toBe('0.123457');
  });

  it('shows the rate with 8 fractional digits', () => {
    expect(pricing.quote('100', 'XAU').exchangeRate.toFixed(8)).toBe('0.12345679');
  });

  it('refuses unknown currencies naming pricing_currency', () => {
    expect(() => pricing.quote('1', 'ABC')).toThrow(ApiException);
    try {
      pricing.quote('1', 'ABC');
    } catch (error) {
      expect((error as ApiException).param).toBe('pricing_currency');
    }
  });

  it('refuses amounts outside the session bounds', () => {
    expect(() => pricing.quote('0.009', 'USD')).toThrow(/between 0.01 and 10000000/);
    expect(() => pricing.quote('10000000.000001', 'USD')).toThrow(/between/);
    expect(pricing.quote('10000000', 'USD').amount.toFixed()).toBe('10000000');
  });
});

describe('PricingService with a rate source that cannot vouch for its rates', () => {
  const unavailable: RateLookup = {
    status: 'unavailable',
    reason: 'The exchange rate for EUR is out of date (as of 2026-05-01T10:00:00.000Z; ...).',
    retryAfterSeconds: 60,
  };
  const source = (lookup: RateLookup): ExchangeRateProvider => ({
    lookup: () => lookup,
    supportedCurrencies: () => ['EUR'],
  });
  const failure = (pricing: PricingService, currency: string): ApiException => {
    try {
      pricing.quote('10', currency);
    } catch (error) {
      return error as ApiException;
    }
    throw new Error('expected an ApiException');
  };

  it('answers 503 service_unavailable naming the currency, with Retry-After', () => {
    const error = failure(new PricingService(source(unavailable)), 'EUR');
    expect(error).toBeInstanceOf(ApiException);
    expect(error.code).toBe(ErrorCode.ServiceUnavailable);
    expect(error.status).toBe(503);
    expect(error.message).toBe(unavailable.reason);
    expect(error.param).toBe('pricing_currency');
    expect(error.headers).toEqual({ 'Retry-After': '60' });
  });

  it('prices USD and the stablecoins 1:1 without asking the source', () => {
    const lookup = jest.fn(() => unavailable);
    const pricing = new PricingService({ lookup, supportedCurrencies: () => [] });
    for (const currency of ['USD', 'USDT', 'USDC']) {
      expect(pricing.quote('10', currency).amount.toFixed()).toBe('10');
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it('uses a current rate as it is', () => {
    const current: RateLookup = { status: 'current', usdPerUnit: new Decimal('1.1'), asOf: null };
    expect(new PricingService(source(current)).quote('10', 'EUR').amount.toFixed()).toBe('11');
  });

  it('lists the pegs among the supported currencies of an unknown code', () => {
    const error = failure(new PricingService(source({ status: 'unsupported' })), 'ABC');
    expect(error.code).toBe(ErrorCode.ParameterInvalid);
    expect(error.message).toBe(
      "pricing_currency 'ABC' is not supported. Supported: EUR, USD, USDC, USDT.",
    );
  });
});
