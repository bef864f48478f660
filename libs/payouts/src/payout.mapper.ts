import { formatAmount } from '@app/common';
import { PayoutDto } from './dto/payout.dto';
import { pendingReasonForReview, PayoutRecord } from './payout.types';

/** ISO 8601 with a numeric offset ("+00:00"), as the service document shows for payouts. */
export function formatOffsetTimestamp(value: Date | string): string {
  return new Date(value).toISOString().replace(/Z$/, '+00:00');
}

function optionalTimestamp(value: Date | string | null): string | null {
  return value === null ? null : formatOffsetTimestamp(value);
}

/** What keeps a Pending payout waiting: an open review first, then the processor's reason. */
function pendingReasonOf(row: PayoutRecord): string | null {
  if (row.status !== 'Pending') return null;
  if (row.review_reason && !row.reviewed_at) return pendingReasonForReview(row.review_reason);
  return row.pending_reason;
}

/** The one place a payout row becomes the public object of spec section 2.3. */
export function toPayoutDto(row: PayoutRecord): PayoutDto {
  return {
    id: row.id,
    status: row.status,
    livemode: row.livemode,
    amount: formatAmount(row.amount),
    fee: formatAmount(row.fee),
    net_amount: formatAmount(row.net_amount),
    currency: row.currency,
    network: row.network,
    to_address: row.to_address,
    description: row.description,
    metadata: row.metadata,
    tx_hash: row.tx_hash,
    error_reason: row.error_reason,
    pending_reason: pendingReasonOf(row),
    reviewed_by: row.reviewed_by,
    reviewed_at: optionalTimestamp(row.reviewed_at),
    completed_at: optionalTimestamp(row.completed_at),
    created_at: formatOffsetTimestamp(row.created_at),
    sub_merchant_code: row.sub_merchant_code,
    batch_id: row.batch_id ?? null,
  };
}
