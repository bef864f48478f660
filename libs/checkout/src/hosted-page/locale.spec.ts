import fc from 'fast-check';
import {
  formatDecimal,
  formatFiat,
  formatWithSymbols,
  LOCALES,
  negotiateLocale,
  numberSymbols,
} from './locale';

describe('negotiateLocale', () => {
  it.each([
    // The query wins when it names a language we speak, in any common spelling.
    ['de', 'fr', 'de'],
    ['pt-BR', undefined, 'pt'],
    ['pt_br', undefined, 'pt'],
    ['FR', 'de', 'fr'],
    [' es ', undefined, 'es'],
    // An unknown query falls through to the header.
    ['xx', 'de-DE,de;q=0.9', 'de'],
    ['', 'es', 'es'],
    // Accept-Language by quality, ties in header order.
    [undefined, 'fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr'],
    [undefined, 'en;q=0.5, de;q=0.9', 'de'],
    [undefined, 'ja, pt-PT;q=0.4, es;q=0.3', 'pt'],
    [undefined, 'es;q=0.8, fr;q=0.8', 'es'],
    [undefined, 'de;q=0, fr;q=0.1', 'fr'],
    [undefined, 'DE-at', 'de'],
    // q=0 means "not this one"; a malformed weight is ignored.
    [undefined, 'de;q=0', 'en'],
    [undefined, 'de;q=2, es', 'es'],
    [undefined, 'de;q=abc, fr;q=0.2', 'fr'],
    // Nothing we speak, a wildcard, or nothing at all: English.
    [undefined, 'ja, zh-CN;q=0.9', 'en'],
    [undefined, '*', 'en'],
    [undefined, '', 'en'],
    [undefined, ',,;;', 'en'],
    [undefined, undefined, 'en'],
  ])('query %p, Accept-Language %p: %s', (query, header, expected) => {
    expect(negotiateLocale(query, header)).toBe(expected);
  });

  it('ignores a query that is not a string (repeated ?locale=)', () => {
    expect(negotiateLocale(['de', 'fr'] as unknown as string, 'es')).toBe('es');
  });

  it('stays fast and sane on a huge header', () => {
    const header = `${'xx;q=0.5,'.repeat(100_000)}de`;
    expect(negotiateLocale(undefined, header)).toBe('en');
  });
});

describe('formatDecimal', () => {
  it.each([
    ['en', '1234.567891', '1,234.567891'],
    ['de', '1234.567891', '1.234,567891'],
    ['fr', '1234.567891', '1\u202f234,567891'],
    ['pt', '1234.567891', '1.234,567891'],
    // Spanish does not group four-digit integers.
    ['es', '1234.567891', '1234,567891'],
    ['es', '12345.5', '12.345,5'],
    ['en', '0.000001', '0.000001'],
    ['en', '999', '999'],
    ['en', '1000', '1,000'],
    [
      'de',
      '1234567890123456789012.123456789012345678',
      '1.234.567.890.123.456.789.012,123456789012345678',
    ],
    ['en', '9007199254740993', '9,007,199,254,740,993'],
    ['en', '100.10', '100.10'],
  ] as const)('%s: %s is %s', (locale, value, expected) => {
    expect(formatDecimal(value, locale)).toBe(expected);
  });

  it('pads the fraction only when asked', () => {
    expect(formatDecimal('12.5', 'de', { minimumFractionDigits: 2 })).toBe('12,50');
    expect(formatDecimal('12', 'en', { minimumFractionDigits: 2 })).toBe('12.00');
    expect(formatDecimal('12.345', 'en', { minimumFractionDigits: 2 })).toBe('12.345');
  });

  it.each(['1e21', '-1', '1.', '.5', '1,5', '', 'NaN', ' 1'])('refuses %p', (value) => {
    expect(() => formatDecimal(value, 'en')).toThrow(TypeError);
  });

  it('keeps every digit, in order, for every locale', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,30}$/),
        fc.option(fc.stringMatching(/^[0-9]{1,18}$/), { nil: undefined }),
        fc.constantFrom(...LOCALES),
        (integer, fraction, locale) => {
          const value = fraction === undefined ? integer : `${integer}.${fraction}`;
          const symbols = numberSymbols(locale);
          const formatted = formatDecimal(value, locale);
          const [whole, decimals] = formatted.split(symbols.decimal);
          expect(whole.split(symbols.group).join('')).toBe(integer);
          expect(decimals).toBe(fraction);
        },
      ),
    );
  });

  it('reads the separators from Intl', () => {
    expect(numberSymbols('en')).toEqual({ group: ',', decimal: '.', minimumGroupingDigits: 1 });
    expect(numberSymbols('de')).toEqual({ group: '.', decimal: ',', minimumGroupingDigits: 1 });
    expect(numberSymbols('es')).toEqual({ group: '.', decimal: ',', minimumGroupingDigits: 2 });
    expect(formatWithSymbols('1234', { group: "'", decimal: '.', minimumGroupingDigits: 1 })).toBe(
      "1'234",
    );
  });
});

describe('formatFiat', () => {
  it.each([
    ['12.5', 'EUR', 'de', '12,50 EUR'],
    ['1234.5', 'USD', 'en', '1,234.50 USD'],
    ['1500', 'JPY', 'en', '1,500 JPY'],
    ['10.123', 'KWD', 'en', '10.123 KWD'],
    ['99.99', 'BRL', 'pt', '99,99 BRL'],
    ['5', 'ZZZ1', 'en', '5.00 ZZZ1'],
  ] as const)('%s %s in %s is %s', (amount, currency, locale, expected) => {
    expect(formatFiat(amount, currency, locale)).toBe(expected);
  });
});
