import type { RecordedTransferFacts } from '../detected-transfers.repository';

export const UNMATCHED_REASONS = [
  'wrong_network',
  'wrong_token',
  'session_already_paid',
  'session_refunded',
  'unknown_address',
] as const;

/**
 * Why a transfer to one of our addresses was not credited to a session.
 * - `wrong_network`: the address is a session's, on another network of the same chain family.
 * - `wrong_token`: the session's network, another watched token than the session's.
 * - `session_already_paid`: the session was already Paid when the transfer was detected.
 * - `session_refunded`: the session had a refund not Failed or Canceled when the transfer was
 *   detected: the refund was decided on what the session had received, so nothing more is
 *   credited to it (it could turn Paid while its money goes back); the merchant refunds this too.
 * - `unknown_address`: an address of our pool that no session has (operators only).
 */
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

/** `detected`: on the chain as far as we know. `reverted`: its block was replaced by a reorg. */
export const UNMATCHED_STATUSES = ['detected', 'reverted'] as const;
export type UnmatchedStatus = (typeof UNMATCHED_STATUSES)[number];

/** A transfer of a supported token to one of our addresses that no session may take. */
export interface UnmatchedTransfer extends RecordedTransferFacts {
  reason: UnmatchedReason;
  /** The session that owns the address, when one does (null for unknown_address). */
  sessionId: string | null;
  merchantId: string | null;
  subMerchantId: string | null;
  /** The session's; for unknown_address the deployment's environment. */
  livemode: boolean;
}

/** An unmatched transfer still open to a reorg. */
export interface OpenUnmatchedTransfer {
  id: string;
  block_number: string;
  block_hash: string;
}

/** A stored unmatched transfer as the API and the CLI read it. */
export interface UnmatchedTransferRecord {
  id: string;
  merchant_id: string | null;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  session_id: string | null;
  livemode: boolean;
  reason: UnmatchedReason;
  status: UnmatchedStatus;
  network: string;
  currency: string;
  token_contract: string;
  from_address: string;
  to_address: string;
  tx_hash: string;
  log_index: number;
  amount: string;
  amount_base_units: string;
  block_number: string;
  block_hash: string;
  reverted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
