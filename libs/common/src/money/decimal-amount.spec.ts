import fc from 'fast-check';
import { Decimal, describeAmountProblem, formatAmount, formatFixed } from './decimal-amount';

const shape = { maxIntegerDigits: 12, maxFractionDigits: 6 };

describe('describeAmountProblem', () => {
  it.each(['1', '0.5', '10.50', '999999999999.999999', '0.000001'])('accepts %s', (value) => {
    expect(describeAmountProblem(value, shape)).toBeNull();
  });

  it.each([
    ['-1', 'plain decimal'],
    ['0', 'greater than zero'],
    ['0.000000', 'greater than zero'],
    ['1e3', 'plain decimal'],
    ['1.0000001', 'at most 6 fractional'],
    ['1000000000000', 'at most 12 integer'],
    ['01.5', 'plain decimal'],
    ['1.', 'plain decimal'],
    ['.5', 'plain decimal'],
    [' 1', 'plain decimal'],
    ['+1', 'plain decimal'],
    ['NaN', 'plain decimal'],
    ['abc', 'plain decimal'],
  ])('rejects %s', (value, reason) => {
    expect(describeAmountProblem(value, shape)).toContain(reason);
  });

  it.each([[10], [null], [true], [{}], [['1']]])('rejects non-strings (%p)', (value) => {
    expect(describeAmountProblem(value, shape)).toContain('not a JSON number');
  });

  it('formats exactly, without exponent or trailing zeros, for any shape-valid input', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 18n - 1n }),
        fc.integer({ min: 0, max: 6 }),
        (units, scale) => {
          const digits = units.toString().padStart(scale + 1, '0');
          const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
          const formatted = formatAmount(text);
          expect(formatted).not.toMatch(/e|E/);
          expect(
            BigInt(
              formatted.replace('.', '') +
                '0'.repeat(scale - (formatted.split('.')[1] ?? '').length),
            ),
          ).toBe(units);
        },
      ),
    );
  });

  it("formats PostgreSQL's NUMERIC text exactly as decimal.js does", () => {
    // NUMERIC(38,18) columns answer with all 18 fractional digits; zeros, integers and other
    // texts (signs, exponents) as well.
    const numericText = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }))
      .map(([units, scale]) => {
        const digits = units.toString().padStart(scale + 1, '0');
        return scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
      });
    const otherText = fc.constantFrom('-1.50', '-0.000', '1e3', '0001.10', '5.', '0', '0.0');
    fc.assert(
      fc.property(fc.oneof(numericText, otherText), (text) => {
        expect(formatAmount(text)).toBe(new Decimal(text).toFixed());
      }),
    );
    expect(formatAmount('10.500000000000000000')).toBe('10.5');
    expect(formatAmount('100.000000000000000000')).toBe('100');
    expect(formatAmount('0.000000000000000000')).toBe('0');
  });

  it('formats rates with a fixed number of fractional digits', () => {
    expect(formatFixed('1', 8)).toBe('1.00000000');
    expect(formatFixed('0.123456789', 8)).toBe('0.12345679');
  });
});
