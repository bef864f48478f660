import { ApiException } from '@app/common';
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
