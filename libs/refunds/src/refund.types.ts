/**
 * Refund statuses (docs/refunds.md). `requires_destination`: created without an
 * address, waiting for the customer's on the hosted page. From `Pending` on, the status follows
 * the internal payout that sends it.
 */
export const REFUND_STATUSES = [
  'requires_destination',
  'Pending',
  'Processing',
  'Completed',
  'Failed',
  'Canceled',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Statuses whose amount no longer counts as refunded: the money stayed (or came back). */
export const UNREFUNDED_STATUSES: readonly RefundStatus[] = ['Failed', 'Canceled'];

/** Statuses in which the merchant may still cancel: nothing has been signed. */
export const CANCELABLE_STATUSES: readonly RefundStatus[] = ['requires_destination', 'Pending'];

/** A refund row as stored, with its sub-merchant's code joined in. */
export interface RefundRecord {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  livemode: boolean;
  session_id: string | null;
  unmatched_transfer_id: string | null;
  status: RefundStatus;
  amount: string;
  fee: string;
  net_amount: string;
  currency: string;
  network: string;
  chain_family: string;
  to_address: string | null;
  reason: string | null;
  tx_hash: string | null;
  error_reason: string | null;
  completed_at: Date | null;
  canceled_at: Date | null;
  /** A customer-given address is not sent before this (REFUND_DESTINATION_DELAY_MINUTES). */
  send_after: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a refund gives back: a session's payment or one unmatched transfer. */
export type RefundSource =
  | { kind: 'session'; sessionId: string }
  | { kind: 'unmatched_transfer'; unmatchedTransferId: string };
