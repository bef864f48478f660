/** Payout statuses; see docs/decisions.md (Payouts) for every transition. */
export const PAYOUT_STATUSES = [
  'Pending',
  'Processing',
  'Completed',
  'Failed',
  'Rejected',
] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Why a payout that needs an operator waits. */
export const REVIEW_REASONS = ['amount_above_threshold', 'new_destination'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/** Why a `Pending` payout is not being sent yet (shown as `pending_reason`). */
export const PENDING_REASONS = [
  'review_amount_above_threshold',
  'review_new_destination',
  'hot_wallet_insufficient_token',
  'hot_wallet_insufficient_gas',
  'hot_wallet_not_configured',
  'network_unavailable',
  'awaiting_simulation',
] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];

export function pendingReasonForReview(reason: ReviewReason): PendingReason {
  return reason === 'amount_above_threshold'
    ? 'review_amount_above_threshold'
    : 'review_new_destination';
}

/** A payout row as stored, with its sub-merchant's code joined in. */
export interface PayoutRecord {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  livemode: boolean;
  status: PayoutStatus;
  amount: string;
  fee: string;
  net_amount: string;
  fee_percent: string;
  fee_fixed: string;
  currency: string;
  network: string;
  chain_family: string;
  token_contract: string;
  token_decimals: number;
  to_address: string;
  description: string | null;
  metadata: string | null;
  review_reason: ReviewReason | null;
  pending_reason: PendingReason | null;
  reviewed_by: string | null;
  reviewed_at: Date | null;
  tx_hash: string | null;
  error_reason: string | null;
  completed_at: Date | null;
  created_at: Date;
  /** The batch it was created in (POST /v1/payout-batches), null for a single payout. */
  batch_id: string | null;
}

/** The statuses a payout never leaves: its funds are paid out or back in the balance. */
export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['Completed', 'Failed', 'Rejected'];
