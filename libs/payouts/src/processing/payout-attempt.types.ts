export type AttemptStatus = 'Signed' | 'Broadcast' | 'Superseded' | 'Expired';

/**
 * 'transfer': the payout's token transfer. 'cancel': a zero-value send to the hot wallet itself
 * with the payout's nonce (`payouts:cancel-nonce`); mined, it fails the payout, never completes it.
 */
export type AttemptPurpose = 'transfer' | 'cancel';

/** One stored transaction of a payout (payout_attempts). */
export interface PayoutAttempt {
  id: string;
  payout_id: string;
  attempt_number: number;
  network: string;
  wallet_address: string;
  nonce: string | null;
  tx_hash: string;
  raw_transaction: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  gas_limit: string | null;
  expires_at: Date | null;
  status: AttemptStatus;
  purpose: AttemptPurpose;
  broadcast_count: number;
  /**
   * When a node first took it into its pool. Neither "already known" nor a later acceptance moves
   * it: behind a load balancer a backend that never had it (or evicted it) takes it again at
   * every re-send, which would put off its replacement for as long as a fee spike lasts.
   */
  last_broadcast_at: Date | null;
  last_broadcast_result: string | null;
  /**
   * When it was stored: clock_timestamp() at the insert, not its transaction's start (a claim
   * waits for the wallet's lock). The tracker compares it with the database's clock, never its
   * own (review r6, L1).
   */
  created_at: Date;
  /** Touched by every broadcast, accepted or not. */
  updated_at: Date;
}
