import Decimal from 'decimal.js';
import { SessionStatus } from '../checkout-session.entity';

export interface SessionState {
  amount: Decimal;
  /** Sum of confirmed transfers. */
  received: Decimal;
  expiresAt: Date;
  now: Date;
  tolerancePercent: Decimal;
  /** The tolerance is the smaller of the percentage and this amount. */
  toleranceMax: Decimal;
}

/**
 * Status from the facts alone, so recomputing after any change (payment, confirmation, reorg,
 * expiry) always lands in the same place. Paid wins even after expiry: a late full payment counts.
 */
export function sessionStatusFor(state: SessionState): SessionStatus {
  const tolerance = Decimal.min(
    state.amount.times(state.tolerancePercent).dividedBy(100),
    state.toleranceMax,
  );
  if (
    state.received.greaterThan(0) &&
    state.received.greaterThanOrEqualTo(state.amount.minus(tolerance))
  ) {
    return 'Paid';
  }
  if (state.now.getTime() < state.expiresAt.getTime()) return 'Pending';
  return state.received.greaterThan(0) ? 'Underpaid' : 'Expired';
}
