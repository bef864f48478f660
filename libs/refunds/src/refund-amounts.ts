import Decimal from 'decimal.js';
import { ApiException, ErrorCode, formatAmount } from '@app/common';

/** What decides how much of a session may be refunded, and how much by default. */
export interface SessionRefundFacts {
  status: 'Pending' | 'Paid' | 'Underpaid' | 'Expired';
  /** What the session asked for. */
  amount: Decimal;
  /** Confirmed and credited to the merchant. */
  received: Decimal;
  /** Refunds of the session that are not Failed or Canceled. */
  refunded: Decimal;
}

/** What was received and not yet given back. */
export function refundableOf(facts: SessionRefundFacts): Decimal {
  return Decimal.max(facts.received.minus(facts.refunded), 0);
}

/**
 * The amount when the merchant names none: the whole of an `Expired` or `Underpaid` session (the
 * customer got nothing), the excess of an overpaid `Paid` one (what it took beyond its price,
 * less what was already refunded). Null when only the merchant can say (a `Paid` session
 * without excess, a `Pending` one).
 */
export function defaultRefundAmount(facts: SessionRefundFacts): Decimal | null {
  if (facts.status === 'Expired' || facts.status === 'Underpaid') return refundableOf(facts);
  if (facts.status !== 'Paid') return null;
  const excess = facts.received.minus(facts.amount).minus(facts.refunded);
  return excess.greaterThan(0) ? excess : null;
}

/**
 * Refuses an amount above what is left to refund, or not above twice the network fee (at least
 * half of it must reach the customer): 422s naming `amount`.
 */
export function assertRefundAmount(
  amount: Decimal,
  refundable: Decimal,
  fee: Decimal,
  currency: string,
): void {
  if (amount.greaterThan(refundable)) {
    throw new ApiException(
      ErrorCode.AmountAboveRefundable,
      refundable.isZero()
        ? `Nothing is left to refund: everything received was refunded already, or nothing was received.`
        : `amount is above what is left to refund: at most ${formatAmount(refundable)} ${currency}.`,
      'amount',
    );
  }
  const minimum = fee.times(2);
  if (amount.lessThanOrEqualTo(minimum)) {
    throw new ApiException(
      ErrorCode.AmountTooSmall,
      `amount must be above ${formatAmount(minimum)} ${currency}, twice the network fee of ` +
        `${formatAmount(fee)} deducted from what is sent.`,
      'amount',
    );
  }
}

/** A token cannot carry more fractional digits than its decimals: 400 naming `amount`. */
export function assertSendable(amount: Decimal, decimals: number): void {
  if (amount.decimalPlaces() > decimals) {
    throw ApiException.invalid(
      'amount',
      `amount must have at most ${decimals} fractional digits for this token.`,
    );
  }
}
