import { SweepAttemptRow } from './sweep-journal.repository';

/** What a tracker sends next on a sweeper nonce with no receipt yet. */
export interface LaneToSend {
  /**
   * The operator's cancel a node took at least once (the newest such): it decides the lane from
   * then on, and the sweep's own transactions are neither replaced nor sent again.
   */
  acceptedCancel: SweepAttemptRow | null;
  /** The sweep's own newest transaction (a batch or a top-up); null only with a cancel alone. */
  own: SweepAttemptRow | null;
  /** The newest cancel no node took yet: tried again, alongside the sweep's own. */
  pendingCancel: SweepAttemptRow | null;
}

/**
 * A journaled cancel ends nothing by itself. One a node refused (a gas limit under an L2's
 * intrinsic gas, funds short) must not hold the lane: until a node accepted one, the sweep's
 * own transaction is still replaced and re-sent as if no cancel existed.
 */
export function laneToSend<T extends SweepAttemptRow>(attempts: readonly T[]): LaneToSend {
  const cancels = attempts.filter((attempt) => attempt.step === 'cancel');
  const accepted = cancels.filter((attempt) => attempt.last_broadcast_at !== null);
  const own = attempts.filter((attempt) => attempt.step !== 'cancel');
  const newestCancel = cancels[cancels.length - 1] ?? null;
  return {
    acceptedCancel: accepted[accepted.length - 1] ?? null,
    own: own[own.length - 1] ?? null,
    pendingCancel: newestCancel && newestCancel.last_broadcast_at === null ? newestCancel : null,
  };
}
