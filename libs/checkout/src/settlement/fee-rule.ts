import Decimal from 'decimal.js';

export interface FeeRule {
  /** Percent of the amount received, e.g. 1 for 1 %. */
  percent: Decimal;
  /** Charged once per session that received anything. */
  fixed: Decimal;
}

/** A merchant's own fee rule as stored: each part null when the merchant has none. */
export interface MerchantFeeRule {
  percent: string | null;
  fixed: string | null;
}

export const FEE_FRACTION_DIGITS = 6;

/**
 * The rule a new session is priced with: the merchant's own, part by part, else the configured
 * default (FEE_PERCENT, FEE_FIXED). It is stored on the session, so settling it again later never
 * uses a rule changed since.
 */
export function effectiveFeeRule(merchant: MerchantFeeRule, defaults: FeeRule): FeeRule {
  return {
    percent: merchant.percent === null ? defaults.percent : new Decimal(merchant.percent),
    fixed: merchant.fixed === null ? defaults.fixed : new Decimal(merchant.fixed),
  };
}

/**
 * The fee on a session's confirmed total: percent + fixed, rounded half-up to 6 digits, never more
 * than what was received (a tiny payment cannot leave the merchant owing).
 */
export function computeFee(received: Decimal, rule: FeeRule): Decimal {
  if (received.lessThanOrEqualTo(0)) return new Decimal(0);
  const fee = received
    .times(rule.percent)
    .dividedBy(100)
    .plus(rule.fixed)
    .toDecimalPlaces(FEE_FRACTION_DIGITS, Decimal.ROUND_HALF_UP);
  return Decimal.min(fee, received);
}
