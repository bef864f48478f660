import Decimal from 'decimal.js';
import {
  assertRefundAmount,
  assertSendable,
  defaultRefundAmount,
  refundableOf,
  SessionRefundFacts,
} from './refund-amounts';

const facts = (
  status: SessionRefundFacts['status'],
  amount: string,
  received: string,
  refunded = '0',
): SessionRefundFacts => ({
  status,
  amount: new Decimal(amount),
  received: new Decimal(received),
  refunded: new Decimal(refunded),
});

describe('refund amounts', () => {
  it('defaults to everything received of an expired or underpaid session, less refunds', () => {
    expect(defaultRefundAmount(facts('Underpaid', '100', '40'))?.toFixed()).toBe('40');
    expect(defaultRefundAmount(facts('Underpaid', '100', '40', '15'))?.toFixed()).toBe('25');
    expect(defaultRefundAmount(facts('Expired', '100', '0'))?.toFixed()).toBe('0');
  });

  it('defaults to the excess of an overpaid session, and to nothing once it is refunded', () => {
    expect(defaultRefundAmount(facts('Paid', '100', '130.5'))?.toFixed()).toBe('30.5');
    expect(defaultRefundAmount(facts('Paid', '100', '130.5', '30.5'))).toBeNull();
    expect(defaultRefundAmount(facts('Paid', '100', '100'))).toBeNull();
    expect(defaultRefundAmount(facts('Pending', '100', '20'))).toBeNull();
  });

  it('never counts a refund twice: refundable is received less refunded, never below zero', () => {
    expect(refundableOf(facts('Paid', '100', '130', '30')).toFixed()).toBe('100');
    expect(refundableOf(facts('Paid', '100', '10', '30')).toFixed()).toBe('0');
  });

  it('refuses an amount above the refundable one, or not above twice the fee, naming amount', () => {
    const fee = new Decimal('1');
    const check =
      (amount: string, refundable = '50') =>
      () =>
        assertRefundAmount(new Decimal(amount), new Decimal(refundable), fee, 'USDT');
    expect(check('50.000001')).toThrow(
      expect.objectContaining({ code: 'amount_above_refundable', param: 'amount' }),
    );
    expect(check('1', '0')).toThrow(/Nothing is left to refund/);
    expect(check('2')).toThrow(
      expect.objectContaining({ code: 'amount_too_small', param: 'amount' }),
    );
    expect(check('2')).toThrow(/above 2 USDT/);
    expect(check('2.000001')).not.toThrow();
    expect(check('50')).not.toThrow();
  });

  it("refuses more fractional digits than the token's decimals", () => {
    expect(() => assertSendable(new Decimal('1.0000001'), 6)).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'amount' }),
    );
    expect(() => assertSendable(new Decimal('1.000000000000000001'), 18)).not.toThrow();
  });
});
