import Decimal from 'decimal.js';

export interface FeeRule {
  /** Percent of the amount received, e.g. 1 for 1 %. */
  percent: Decimal;
  /** Charged once per session that received anything. */
  fixed: Decimal;
}

export const FEE_FRACTION_DIGITS = 6;

/** Times 0.01 rather than divided by 100: the same exact value, without a long division. */
const ONE_PERCENT = new Decimal('0.01');

/**
 * The fee on a session's confirmed total: percent + fixed, rounded half-up to 6 digits, never more
 * than what was received (a tiny payment cannot leave the merchant owing).
 */
export function computeFee(received: Decimal, rule: FeeRule): Decimal {
  if (received.lessThanOrEqualTo(0)) return new Decimal(0);
  const fee = received
    .times(rule.percent)
    .times(ONE_PERCENT)
    .plus(rule.fixed)
    .toDecimalPlaces(FEE_FRACTION_DIGITS, Decimal.ROUND_HALF_UP);
  return Decimal.min(fee, received);
}
