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
  if (state.received.greaterThan(0) && isWithinTolerance(state)) return 'Paid';
  if (state.now.getTime() < state.expiresAt.getTime()) return 'Pending';
  return state.received.greaterThan(0) ? 'Underpaid' : 'Expired';
}

const ONE_PERCENT = new Decimal('0.01');

/** Received at least the amount less the tolerance (the full amount needs no tolerance). */
function isWithinTolerance(state: SessionState): boolean {
  if (state.received.greaterThanOrEqualTo(state.amount)) return true;
  const tolerance = Decimal.min(
    state.amount.times(state.tolerancePercent).times(ONE_PERCENT),
    state.toleranceMax,
  );
  return state.received.greaterThanOrEqualTo(state.amount.minus(tolerance));
}
