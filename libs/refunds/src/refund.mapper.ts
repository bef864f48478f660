import { formatAmount } from '@app/common';
import { formatOffsetTimestamp } from '@app/payouts';
import { RefundDto } from './dto/refund.dto';
import type { RefundDestinationLinks } from './refund-destination-links';
import { RefundRecord } from './refund.types';

/**
 * The one place a refund row becomes the public object (API responses and refund.* events).
 * `links` only for an answer to the merchant: events (stored, and sent to any endpoint) and
 * stored idempotent answers carry `destination_url` null, so the secret is never at rest.
 */
export function toRefundDto(row: RefundRecord, links?: RefundDestinationLinks): RefundDto {
  return {
    id: row.id,
    session_id: row.session_id,
    unmatched_transfer_id: row.unmatched_transfer_id,
    status: row.status,
    livemode: row.livemode,
    amount: formatAmount(row.amount),
    fee: formatAmount(row.fee),
    net_amount: formatAmount(row.net_amount),
    currency: row.currency,
    network: row.network,
    to_address: row.to_address,
    destination_url: links?.urlOf(row) ?? null,
    send_after: row.send_after ? formatOffsetTimestamp(row.send_after) : null,
    tx_hash: row.tx_hash,
    reason: row.reason,
    error_reason: row.error_reason,
    created_at: formatOffsetTimestamp(row.created_at),
    completed_at: row.completed_at === null ? null : formatOffsetTimestamp(row.completed_at),
    sub_merchant_code: row.sub_merchant_code,
  };
}
