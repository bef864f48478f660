import { NetworkName } from '@app/chains';
import { BlocksRead } from './blocks-read';
import { PayoutAttempt } from './payout-attempt.types';

// A transaction the node does not know is re-broadcast at most this often (dropped from the pool).
export const REBROADCAST_AFTER_MS = 3_000;

/** What one tick shares between its payouts. */
export interface Tick {
  /** The database's clock now (read with the window, then moved on by ours): every time compared
   * here was written by PostgreSQL, and another host's clock must not matter (review r6, L1). */
  now(): number;
  /**
   * Per wallet, the lowest nonce the node was found not to have this tick (unknown, and not taken
   * back when re-sent): its later nonces cannot be mined before it, and outbidding them only buys
   * fees. Filled in nonce order (the window is walked by wallet and nonce).
   */
  missing: Map<string, bigint>;
  /** EVM: the blocks read so far, whose receipts prove a transaction mined (null on TRON). */
  blocks: BlocksRead | null;
}

export interface TrackReport {
  network: NetworkName;
  inFlight: number;
  completed: number;
  failed: number;
  replaced: number;
  rebroadcast: number;
  resigned: number;
  /**
   * Payouts whose stuck transaction is due for a replacement that no key here can sign (its
   * wallet's key was rotated or removed): `payouts:cancel-nonce --key-file` is their way out.
   */
  unreplaceable: string[];
}

/** When we last broadcast the attempt, whatever the node answered (or when it was signed). */
export function lastTried(attempt: PayoutAttempt): number {
  return new Date(attempt.broadcast_count > 0 ? attempt.updated_at : attempt.created_at).getTime();
}

export function liveIds(attempts: PayoutAttempt[]): string[] {
  return attempts
    .filter((attempt) => attempt.status === 'Signed' || attempt.status === 'Broadcast')
    .map((attempt) => attempt.id);
}
