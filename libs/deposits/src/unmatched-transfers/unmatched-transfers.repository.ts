import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  commonListConditions,
  ID_PREFIX,
  ListResult,
  ListSpec,
  newId,
  PageRequest,
  queryList,
} from '@app/common';
import { SubMerchantScope } from '@app/sub-merchants';
import {
  OpenUnmatchedTransfer,
  UnmatchedReason,
  UnmatchedStatus,
  UnmatchedTransfer,
  UnmatchedTransferRecord,
} from './unmatched-transfer';

export interface UnmatchedListFilter {
  merchantId: string;
  livemode: boolean;
  scope: SubMerchantScope;
  reasons?: UnmatchedReason[];
  statuses?: UnmatchedStatus[];
  network?: string;
  sessionId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** What an operator lists: every merchant's, and those of no merchant (unknown_address). */
export interface OperatorUnmatchedFilter {
  merchantId?: string;
  reasons?: UnmatchedReason[];
  statuses?: UnmatchedStatus[];
  network?: string;
  limit: number;
}

const PROJECTION = `u.*, sm.code AS sub_merchant_code`;
const SOURCE = `unmatched_transfers u LEFT JOIN sub_merchants sm ON sm.id = u.sub_merchant_id`;

/**
 * The merchant's unmatched transfers as SQL. Few per merchant (each is a payment gone astray),
 * so reasons and sessions filter the merchant's newest-first range rather than having indexes.
 */
export function unmatchedListSpec(filter: UnmatchedListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('u', filter, bind);
  where.push(`u.livemode = ${bind(filter.livemode)}`);
  if (filter.reasons?.length) where.push(`u.reason = ANY(${bind(filter.reasons)}::text[])`);
  if (filter.sessionId) where.push(`u.session_id = ${bind(filter.sessionId)}`);
  return {
    table: 'unmatched_transfers',
    alias: 'u',
    where,
    anyOf,
    params,
    select: PROJECTION,
    from: SOURCE,
    merchantId: filter.merchantId,
    noun: 'unmatched transfer',
  };
}

/** unmatched_transfers: written by the deposit watcher, read by the API and the operator CLI. */
@Injectable()
export class UnmatchedTransfersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records each transfer once (network, tx hash, log index): the watcher rescans a trailing
   * window every tick and finds the same transfers again. One known and not reverted is left
   * alone; a reverted one found again (mined again after a reorg) is reopened at its new block.
   */
  /** Returns how many were new or reopened (a rescan finding known ones returns 0). */
  async record(manager: EntityManager, transfers: UnmatchedTransfer[]): Promise<number> {
    // One statement may not touch a row twice, so a transfer listed twice is written once.
    const unique = [
      ...new Map(
        transfers.map((item) => [`${item.network}:${item.txHash}:${item.logIndex}`, item]),
      ).values(),
    ];
    if (!unique.length) return 0;
    const written: Array<{ id: string }> = await manager.query(
      `INSERT INTO unmatched_transfers (id, merchant_id, sub_merchant_id, session_id, livemode,
         reason, network, currency, token_contract, from_address, to_address, tx_hash, log_index,
         amount, amount_base_units, block_number, block_hash)
       SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]),
              unnest($5::boolean[]), unnest($6::text[]), unnest($7::text[]), unnest($8::text[]),
              unnest($9::text[]), unnest($10::text[]), unnest($11::text[]), unnest($12::text[]),
              unnest($13::int[]), unnest($14::numeric[]), unnest($15::numeric[]),
              unnest($16::bigint[]), unnest($17::text[])
       ON CONFLICT (network, tx_hash, log_index) DO UPDATE
         SET status = 'detected', block_number = EXCLUDED.block_number,
             block_hash = EXCLUDED.block_hash, reverted_at = NULL, updated_at = now()
         WHERE unmatched_transfers.status = 'reverted'
       RETURNING id`,
      [
        unique.map(() => newId(ID_PREFIX.unmatchedTransfer)),
        unique.map((item) => item.merchantId),
        unique.map((item) => item.subMerchantId),
        unique.map((item) => item.sessionId),
        unique.map((item) => item.livemode),
        unique.map((item) => item.reason),
        unique.map((item) => item.network),
        unique.map((item) => item.currency),
        unique.map((item) => item.tokenContract),
        unique.map((item) => item.fromAddress),
        unique.map((item) => item.toAddress),
        unique.map((item) => item.txHash),
        unique.map((item) => item.logIndex),
        unique.map((item) => item.amount),
        unique.map((item) => item.amountBaseUnits),
        unique.map((item) => item.blockNumber),
        unique.map((item) => item.blockHash),
      ],
    );
    return written.length;
  }

  /**
   * Unmatched transfers at or above a height that are not reverted: those a reorg could undo.
   * Not those kept of a forgotten chain: the new chain's blocks say nothing about them.
   */
  async findOpenFrom(
    manager: EntityManager,
    network: string,
    fromBlock: number,
  ): Promise<OpenUnmatchedTransfer[]> {
    return manager.query(
      `SELECT id, block_number, block_hash FROM unmatched_transfers
        WHERE network = $1 AND status <> 'reverted' AND block_number >= $2
          AND chain_forgotten_at IS NULL`,
      [network, fromBlock],
    );
  }

  async markReverted(manager: EntityManager, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await manager.query(
      `UPDATE unmatched_transfers SET status = 'reverted', reverted_at = now(), updated_at = now()
        WHERE id = ANY($1::text[]) AND status <> 'reverted' AND chain_forgotten_at IS NULL`,
      [ids],
    );
  }

  /** The merchant's unmatched transfer, or null: another merchant's id is indistinguishable. */
  async findForMerchant(
    merchantId: string,
    livemode: boolean,
    id: string,
  ): Promise<UnmatchedTransferRecord | null> {
    const rows: UnmatchedTransferRecord[] = await this.dataSource.query(
      `SELECT ${PROJECTION} FROM ${SOURCE}
        WHERE u.id = $1 AND u.merchant_id = $2 AND u.livemode = $3`,
      [id, merchantId, livemode],
    );
    return rows[0] ?? null;
  }

  /** One page of the merchant's, newest first, with what the pagination headers need. */
  async list(
    filter: UnmatchedListFilter,
    page: PageRequest,
  ): Promise<ListResult<UnmatchedTransferRecord>> {
    return queryList<UnmatchedTransferRecord>(this.dataSource, unmatchedListSpec(filter), page);
  }

  /** Newest first across all merchants, unknown addresses included (the operator CLI). */
  async listForOperator(filter: OperatorUnmatchedFilter): Promise<UnmatchedTransferRecord[]> {
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const where = ['true'];
    if (filter.merchantId) where.push(`u.merchant_id = ${bind(filter.merchantId)}`);
    if (filter.reasons?.length) where.push(`u.reason = ANY(${bind(filter.reasons)}::text[])`);
    if (filter.statuses?.length) where.push(`u.status = ANY(${bind(filter.statuses)}::text[])`);
    if (filter.network) where.push(`u.network = ${bind(filter.network)}`);
    return this.dataSource.query(
      `SELECT ${PROJECTION} FROM ${SOURCE} WHERE ${where.join(' AND ')}
        ORDER BY u.created_at DESC, u.id DESC LIMIT ${bind(filter.limit)}`,
      params,
    );
  }
}
