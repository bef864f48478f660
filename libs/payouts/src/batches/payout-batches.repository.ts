import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { commonListConditions, ListResult, ListSpec, PageRequest, queryList } from '@app/common';
import { SubMerchantScope } from '@app/sub-merchants';
import { NewPayoutRow } from '../payouts.repository';
import { PayoutRecord, PayoutStatus } from '../payout.types';

export interface PayoutBatchRecord {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  livemode: boolean;
  item_count: number;
  created_at: Date;
  finished_at: Date | null;
}

/** One row of a batch's totals: its payouts in one status and token. */
export interface PayoutBatchTotalRow {
  batch_id: string;
  status: PayoutStatus;
  currency: string;
  network: string;
  count: number;
  amount: string;
  fee: string;
  net_amount: string;
}

export interface PayoutBatchListFilter {
  merchantId: string;
  scope: SubMerchantScope;
  createdAfter?: Date;
  createdBefore?: Date;
}

const BATCH_PROJECTION = `b.*, sm.code AS sub_merchant_code`;
const BATCH_SOURCE = `payout_batches b LEFT JOIN sub_merchants sm ON sm.id = b.sub_merchant_id`;

@Injectable()
export class PayoutBatchesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertBatch(
    manager: EntityManager,
    batch: {
      id: string;
      merchantId: string;
      subMerchantId: string | null;
      livemode: boolean;
      itemCount: number;
    },
  ): Promise<Date> {
    const [row]: Array<{ created_at: Date }> = await manager.query(
      `INSERT INTO payout_batches (id, merchant_id, sub_merchant_id, livemode, item_count)
       VALUES ($1, $2, $3, $4, $5) RETURNING created_at`,
      [batch.id, batch.merchantId, batch.subMerchantId, batch.livemode, batch.itemCount],
    );
    return row.created_at;
  }

  /**
   * The batch's payouts in one statement, as PayoutsRepository.insert writes one (the same
   * columns and defaults), with batch_id; returned in the items' order.
   */
  async insertPayouts(
    manager: EntityManager,
    batchId: string,
    rows: NewPayoutRow[],
  ): Promise<PayoutRecord[]> {
    const input = rows.map((row, index) => ({
      ordinal: index,
      id: row.id,
      merchant_id: row.merchantId,
      sub_merchant_id: row.subMerchantId,
      livemode: row.livemode,
      amount: row.amount,
      fee: row.fee,
      net_amount: row.netAmount,
      fee_percent: row.feePercent,
      fee_fixed: row.feeFixed,
      currency: row.currency,
      network: row.network,
      chain_family: row.chainFamily,
      token_contract: row.tokenContract,
      token_decimals: row.tokenDecimals,
      to_address: row.toAddress,
      description: row.description,
      metadata: row.metadata,
      review_reason: row.reviewReason,
    }));
    const inserted: Array<PayoutRecord & { ordinal?: number }> = await manager.query(
      `WITH input AS (
         SELECT * FROM json_to_recordset($1::json) AS i(
           ordinal integer, id text, merchant_id text, sub_merchant_id text, livemode boolean,
           amount numeric, fee numeric, net_amount numeric, fee_percent numeric, fee_fixed numeric,
           currency text, network text, chain_family text, token_contract text,
           token_decimals integer, to_address text, description text, metadata text,
           review_reason text))
       INSERT INTO payouts
         (id, merchant_id, sub_merchant_id, livemode, status, amount, fee, net_amount, fee_percent,
          fee_fixed, currency, network, chain_family, token_contract, token_decimals, to_address,
          description, metadata, review_reason, refund_id, next_attempt_at, batch_id)
       SELECT id, merchant_id, sub_merchant_id, livemode, 'Pending', amount, fee, net_amount,
              fee_percent, fee_fixed, currency, network, chain_family, token_contract,
              token_decimals, to_address, description, metadata, review_reason, NULL, now(), $2
         FROM input ORDER BY ordinal
       RETURNING *`,
      [JSON.stringify(input), batchId],
    );
    const byId = new Map(inserted.map((row) => [row.id, row]));
    return rows.map((row) => ({ ...byId.get(row.id)!, sub_merchant_code: null }));
  }

  /**
   * Of these (network, address) pairs, the ones the merchant has completed a payout of its own to
   * (PayoutsRepository.hasPaid for many at once), as `network:lower(address)`.
   */
  async paidDestinations(
    manager: EntityManager,
    merchantId: string,
    destinations: Array<{ network: string; address: string }>,
  ): Promise<Set<string>> {
    if (!destinations.length) return new Set();
    const rows: Array<{ destination: string }> = await manager.query(
      `SELECT DISTINCT p.network || ':' || lower(p.to_address) AS destination
         FROM payouts p
         JOIN json_to_recordset($2::json) AS d(network text, address text)
           ON lower(p.to_address) = lower(d.address) AND p.network = d.network
        WHERE p.merchant_id = $1 AND p.status = 'Completed' AND p.refund_id IS NULL`,
      [merchantId, JSON.stringify(destinations)],
    );
    return new Set(rows.map((row) => row.destination));
  }

  async findForMerchant(merchantId: string, id: string): Promise<PayoutBatchRecord | null> {
    const rows: PayoutBatchRecord[] = await this.dataSource.query(
      `SELECT ${BATCH_PROJECTION} FROM ${BATCH_SOURCE} WHERE b.id = $1 AND b.merchant_id = $2`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /** Count and sums per batch, status and token, for these batches, in one round trip. */
  async totals(batchIds: string[]): Promise<PayoutBatchTotalRow[]> {
    return batchTotals(this.dataSource.manager, batchIds);
  }

  async list(
    filter: PayoutBatchListFilter,
    page: PageRequest,
  ): Promise<ListResult<PayoutBatchRecord>> {
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const { where, anyOf } = commonListConditions('b', filter, bind);
    const spec: ListSpec = {
      table: 'payout_batches',
      alias: 'b',
      where,
      anyOf,
      params,
      select: BATCH_PROJECTION,
      from: BATCH_SOURCE,
      merchantId: filter.merchantId,
      noun: 'payout batch',
    };
    return queryList<PayoutBatchRecord>(this.dataSource, spec, page);
  }
}

/** Count and sums per batch, status and token (in the caller's transaction when it has one). */
export async function batchTotals(
  manager: EntityManager,
  batchIds: string[],
): Promise<PayoutBatchTotalRow[]> {
  if (!batchIds.length) return [];
  return manager.query(
    `SELECT batch_id, status, currency, network, count(*)::int AS count,
            trim_scale(sum(amount))::text AS amount, trim_scale(sum(fee))::text AS fee,
            trim_scale(sum(net_amount))::text AS net_amount
       FROM payouts WHERE batch_id = ANY($1)
      GROUP BY batch_id, status, currency, network
      ORDER BY batch_id, network, currency, status`,
    [batchIds],
  );
}
