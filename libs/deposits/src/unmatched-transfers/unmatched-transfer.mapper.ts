import { formatAmount } from '@app/common';
import { UnmatchedTransferDto } from './dto/unmatched-transfer.dto';
import { UnmatchedTransferRecord } from './unmatched-transfer';

/** The one place a stored unmatched transfer becomes the merchant's object. */
export function toUnmatchedTransferDto(row: UnmatchedTransferRecord): UnmatchedTransferDto {
  if (row.session_id === null) {
    // unknown_address rows have no merchant, so no merchant query can return one.
    throw new Error(`Unmatched transfer ${row.id} has no session to show it under.`);
  }
  return {
    id: row.id,
    reason: row.reason,
    status: row.status,
    livemode: row.livemode,
    session_id: row.session_id,
    sub_merchant_code: row.sub_merchant_code,
    network: row.network,
    currency: row.currency,
    currency_contract: row.token_contract,
    amount: formatAmount(row.amount),
    from_address: row.from_address,
    to_address: row.to_address,
    tx_hash: row.tx_hash,
    log_index: Number(row.log_index),
    block_number: Number(row.block_number),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** What the operator CLI prints: everything, merchant or not. */
export function toOperatorView(row: UnmatchedTransferRecord) {
  return {
    id: row.id,
    reason: row.reason,
    status: row.status,
    livemode: row.livemode,
    merchant_id: row.merchant_id,
    sub_merchant_code: row.sub_merchant_code,
    session_id: row.session_id,
    network: row.network,
    currency: row.currency,
    token_contract: row.token_contract,
    amount: formatAmount(row.amount),
    amount_base_units: row.amount_base_units,
    from_address: row.from_address,
    to_address: row.to_address,
    tx_hash: row.tx_hash,
    log_index: Number(row.log_index),
    block_number: Number(row.block_number),
    block_hash: row.block_hash,
    created_at: new Date(row.created_at).toISOString(),
    reverted_at: row.reverted_at === null ? null : new Date(row.reverted_at).toISOString(),
  };
}

export type UnmatchedTransferOperatorView = ReturnType<typeof toOperatorView>;
