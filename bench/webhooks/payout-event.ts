import { randomBytes, randomInt } from 'node:crypto';
import { getAddress, hexlify } from 'ethers';
import { ID_PREFIX, newId } from '@app/common';
import type { NewEvent } from '@app/events';
// The mapper alone: the payouts library's index would load every chain client.
import { toPayoutDto } from '@app/payouts/payout.mapper';
import type { PayoutRecord } from '@app/payouts/payout.types';

/**
 * The event of one status change: a payout just created, with `data.object` built by the service's
 * own mapper from a realistic row (19 fields, ~600 bytes of JSON), so the worker signs and sends
 * what it sends in production. Each event is about a new payout: sequence 1 of its object.
 */
export function payoutCreatedEvent(merchantId: string, ordinal: number): NewEvent {
  const amount = `${randomInt(4, 5000)}.${String(randomInt(0, 100)).padStart(2, '0')}`;
  const row: PayoutRecord = {
    id: newId(ID_PREFIX.payout),
    merchant_id: merchantId,
    sub_merchant_id: null,
    sub_merchant_code: null,
    batch_id: null,
    livemode: false,
    status: 'Pending',
    amount,
    fee: '0',
    net_amount: amount,
    fee_percent: '0',
    fee_fixed: '0',
    currency: 'USDT',
    network: 'ETHEREUM',
    chain_family: 'EVM',
    token_contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    token_decimals: 6,
    to_address: getAddress(hexlify(randomBytes(20))),
    description: `Bench payout ${ordinal}`,
    metadata: JSON.stringify({ order_id: `ord_${ordinal}` }),
    review_reason: null,
    pending_reason: null,
    reviewed_by: null,
    reviewed_at: null,
    tx_hash: null,
    error_reason: null,
    completed_at: null,
    created_at: new Date(),
  };
  return {
    type: 'payout.created',
    merchantId,
    subMerchantId: null,
    subMerchantCode: null,
    objectType: 'payout',
    objectId: row.id,
    previousStatus: null,
    data: { object: toPayoutDto(row) },
  };
}
