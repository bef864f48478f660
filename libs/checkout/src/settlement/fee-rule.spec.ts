import Decimal from 'decimal.js';
import fc from 'fast-check';
import { computeFee } from './fee-rule';

const rule = (percent: string, fixed: string) => ({
  percent: new Decimal(percent),
  fixed: new Decimal(fixed),
});

describe('computeFee', () => {
  it('is percent plus fixed, rounded half-up to 6 digits', () => {
    expect(computeFee(new Decimal('100'), rule('1', '0.1')).toFixed()).toBe('1.1');
    expect(computeFee(new Decimal('0.000050'), rule('1', '0')).toFixed()).toBe('0.000001');
    expect(computeFee(new Decimal('0.000049'), rule('1', '0')).toFixed()).toBe('0');
  });

  it('is zero when nothing was received and never exceeds what was received', () => {
    expect(computeFee(new Decimal(0), rule('1', '5')).toFixed()).toBe('0');
    expect(computeFee(new Decimal('2'), rule('1', '5')).toFixed()).toBe('2');
  });

  it('keeps net + fee = received exactly for any amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 9999 }),
        (units, basis) => {
          const received = new Decimal(units.toString()).dividedBy(1_000_000);
          const fee = computeFee(
            received,
            rule(new Decimal(basis).dividedBy(100).toFixed(), '0.25'),
          );
          expect(fee.greaterThanOrEqualTo(0)).toBe(true);
          expect(fee.lessThanOrEqualTo(received)).toBe(true);
          expect(fee.decimalPlaces()).toBeLessThanOrEqual(6);
          expect(received.minus(fee).plus(fee).equals(received)).toBe(true);
        },
      ),
    );
  });
});
