import Decimal from 'decimal.js';
import { loadAppConfig } from '@app/common';
import { PayoutRules } from './payout-rules';

const rules = (env: Record<string, string> = {}) => new PayoutRules(loadAppConfig({ ...env }));

describe('PayoutRules', () => {
  it('charges the network fixed fee plus the percent, rounded half-up to 6 digits', () => {
    const subject = rules({ PAYOUT_FEE_PERCENT: '0.5', PAYOUT_NETWORK_FEES: 'TRON=1' });
    const { fee, net } = subject.fee(new Decimal('100.000001'), subject.feeRule('TRON', null));
    // 100.000001 × 0.5 % = 0.500000005 -> 0.500000 (half-up at the 7th digit 0), + 1
    expect(fee.toFixed()).toBe('1.5');
    expect(net.toFixed()).toBe('98.500001');
  });

  it("uses the merchant's percent over the default, and built-in network fees", () => {
    const subject = rules({ PAYOUT_FEE_PERCENT: '2' });
    const rule = subject.feeRule('ETHEREUM', '0.25');
    expect(rule.percent.toFixed()).toBe('0.25');
    expect(rule.fixed.toFixed()).toBe('3');
  });

  it('refuses an amount the fee would eat, naming amount', () => {
    const subject = rules({ PAYOUT_NETWORK_FEES: 'TRON=1' });
    expect(() => subject.fee(new Decimal('1'), subject.feeRule('TRON', null))).toThrow(
      expect.objectContaining({ param: 'amount', code: 'parameter_invalid' }),
    );
  });

  it('bounds amounts by configuration', () => {
    const subject = rules({ PAYOUT_MIN_AMOUNT: '5', PAYOUT_MAX_AMOUNT: '100' });
    expect(() => subject.assertAmountInBounds(new Decimal('4.999999'))).toThrow(
      /between 5 and 100/,
    );
    expect(() => subject.assertAmountInBounds(new Decimal('100.000001'))).toThrow();
    expect(() => subject.assertAmountInBounds(new Decimal('100'))).not.toThrow();
  });

  it('reviews above the pair threshold, else a new destination when asked', () => {
    const subject = rules({
      PAYOUT_REVIEW_THRESHOLD: '1000',
      PAYOUT_REVIEW_THRESHOLDS: 'TRON:USDT=50',
    });
    expect(subject.reviewReason(new Decimal('51'), 'TRON', 'USDT', false)).toBe(
      'amount_above_threshold',
    );
    expect(subject.reviewReason(new Decimal('50'), 'TRON', 'USDT', false)).toBeNull();
    expect(subject.reviewReason(new Decimal('999'), 'BSC', 'USDT', true)).toBe('new_destination');
    expect(subject.reviewReason(new Decimal('1000.5'), 'BSC', 'USDT', true)).toBe(
      'amount_above_threshold',
    );
    expect(subject.reviewReasons(new Decimal('1000.5'), 'BSC', 'USDT', true)).toEqual([
      'amount_above_threshold',
      'new_destination',
    ]);
    expect(subject.reviewReasons(new Decimal('10'), 'BSC', 'USDT', false)).toEqual([]);
  });
});
