import { Injectable } from '@nestjs/common';
import { commonListConditions, ListResult, ListSpec, PageRequest, queryList } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryPrepared } from '@app/database';
import { SubMerchantScope } from '@app/sub-merchants';
import { PayoutRecord, PayoutStatus, ReviewReason } from './payout.types';

export interface NewPayoutRow {
  id: string;
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  amount: string;
  fee: string;
  netAmount: string;
  feePercent: string;
  feeFixed: string;
  currency: string;
  network: string;
  chainFamily: string;
  tokenContract: string;
  tokenDecimals: number;
  toAddress: string;
  description: string | null;
  metadata: string | null;
  reviewReason: ReviewReason | null;
  /** Set on the internal payout that sends a refund (docs/treasury.md, "Refunds"). */
  refundId?: string | null;
  /**
   * Not sent before this (its first `next_attempt_at`, which the sender and the reconciler already
   * wait for): a refund to an address the customer gave waits for the merchant to cancel it.
   */
  notBefore?: Date | null;
}

export interface PayoutListFilter {
  merchantId: string;
  scope: SubMerchantScope;
  statuses?: PayoutStatus[];
  network?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  searchText?: string;
  /** Only the payouts of this batch. */
  batchId?: string;
}

export interface MerchantPayoutPolicy {
  payoutFeePercent: string | null;
  reviewNewDestinations: boolean;
}

const PAYOUT_PROJECTION = `p.*, sm.code AS sub_merchant_code`;
const PAYOUT_SOURCE = `payouts p LEFT JOIN sub_merchants sm ON sm.id = p.sub_merchant_id`;

/**
 * What an insert returns: the record's columns by name, not `*`, as its statement is prepared
 * (queryPrepared: a column added by a migration would otherwise break it on live connections).
 */
const INSERTED_COLUMNS = `id, merchant_id, sub_merchant_id, livemode, status, amount, fee, net_amount,
  fee_percent, fee_fixed, currency, network, chain_family, token_contract, token_decimals,
  to_address, description, metadata, review_reason, pending_reason, reviewed_by, reviewed_at,
  tx_hash, error_reason, completed_at, created_at, batch_id, refund_id, next_attempt_at`;

/**
 * The payout list as SQL. A search is an exact lookup on each key the text could be (payout id,
 * transaction hash, destination address), each a newest-first range of its own index, merged.
 */
export function payoutListSpec(filter: PayoutListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('p', filter, bind);
  // A refund's payout is internal: the merchant follows the refund, not the payout.
  where.push('p.refund_id IS NULL');
  if (filter.batchId) where.push(`p.batch_id = ${bind(filter.batchId)}`);
  if (filter.searchText) {
    if (anyOf.length) where.push(`(${anyOf.splice(0).join(' OR ')})`);
    const text = bind(filter.searchText);
    anyOf.push(
      `p.id = ${text}`,
      // Spelled out: the hash index is partial, and lower(x) = y does not tell the planner x is set.
      `p.tx_hash IS NOT NULL AND lower(p.tx_hash) = lower(${text})`,
      `lower(p.to_address) = lower(${text})`,
    );
  }
  return {
    table: 'payouts',
    alias: 'p',
    where,
    anyOf,
    params,
    select: PAYOUT_PROJECTION,
    from: PAYOUT_SOURCE,
    merchantId: filter.merchantId,
    noun: 'payout',
  };
}

@Injectable()
export class PayoutsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async merchantPolicy(manager: EntityManager, merchantId: string): Promise<MerchantPayoutPolicy> {
    const [row] = await queryPrepared<{
      payout_fee_percent: string | null;
      review_new_destinations: boolean;
    }>(manager, `SELECT payout_fee_percent, review_new_destinations FROM merchants WHERE id = $1`, [
      merchantId,
    ]);
    return {
      payoutFeePercent: row?.payout_fee_percent ?? null,
      reviewNewDestinations: row?.review_new_destinations ?? false,
    };
  }

  /**
   * Whether the merchant has ever completed a payout of its own (not a refund's) to this address
   * on this network.
   */
  async hasPaid(
    manager: EntityManager,
    merchantId: string,
    network: string,
    address: string,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      // Not a refund's: the customer typed that address, the merchant never chose it.
      `SELECT 1 FROM payouts WHERE merchant_id = $1 AND lower(to_address) = lower($3)
          AND network = $2 AND status = 'Completed' AND refund_id IS NULL LIMIT 1`,
      [merchantId, network, address],
    );
    return rows.length > 0;
  }

  /**
   * An address of the service: a pay address, a hot wallet, sweeper or treasury wallet (current or
   * retired: wallet_addresses keeps every one reconciliation reads), or a sweep delegate contract
   * the service has called. Sending there would pay ourselves, and tokens landing on an address
   * reconciliation counts would show as a difference while the customer got nothing. EVM spellings
   * differ by case only: compared in lower case (pay addresses are stored in the canonical form
   * the caller passes, and looked up by it: their table is large).
   */
  async isServiceAddress(address: string): Promise<boolean> {
    // Prepared: planning this five-way union cost PostgreSQL three times what running it does.
    const rows = await queryPrepared(
      this.dataSource.manager,
      `SELECT 1 FROM pay_addresses WHERE address = $1
       UNION ALL SELECT 1 FROM hot_wallets WHERE lower(address) = lower($1)
       UNION ALL SELECT 1 FROM wallet_addresses WHERE lower(address) = lower($1)
       UNION ALL SELECT 1 FROM treasury_wallets WHERE lower(address) = lower($1)
       UNION ALL SELECT 1 FROM sweeps WHERE lower(delegate) = lower($1) AND delegate IS NOT NULL
       LIMIT 1`,
      [address],
    );
    return rows.length > 0;
  }

  /**
   * Of these addresses, the ones isServiceAddress answers true for, in one query (a batch's
   * destinations). Returned as given.
   */
  async serviceAddressesAmong(addresses: string[]): Promise<Set<string>> {
    if (!addresses.length) return new Set();
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `WITH a AS (SELECT DISTINCT address, lower(address) AS low FROM unnest($1::text[]) AS address)
       SELECT a.address FROM a JOIN pay_addresses p ON p.address = a.address
       UNION SELECT a.address FROM a JOIN hot_wallets w ON lower(w.address) = a.low
       UNION SELECT a.address FROM a JOIN wallet_addresses w ON lower(w.address) = a.low
       UNION SELECT a.address FROM a JOIN treasury_wallets w ON lower(w.address) = a.low
       UNION SELECT a.address FROM a JOIN sweeps s
                ON lower(s.delegate) = a.low AND s.delegate IS NOT NULL`,
      [addresses],
    );
    return new Set(rows.map((row) => row.address));
  }

  async insert(manager: EntityManager, row: NewPayoutRow): Promise<PayoutRecord> {
    const [inserted] = await queryPrepared<PayoutRecord>(
      manager,
      `INSERT INTO payouts
         (id, merchant_id, sub_merchant_id, livemode, status, amount, fee, net_amount, fee_percent,
          fee_fixed, currency, network, chain_family, token_contract, token_decimals, to_address,
          description, metadata, review_reason, refund_id, next_attempt_at)
       VALUES ($1, $2, $3, $4, 'Pending', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
               $18, $19, GREATEST(now(), COALESCE($20::timestamptz, now())))
       RETURNING ${INSERTED_COLUMNS}`,
      [
        row.id,
        row.merchantId,
        row.subMerchantId,
        row.livemode,
        row.amount,
        row.fee,
        row.netAmount,
        row.feePercent,
        row.feeFixed,
        row.currency,
        row.network,
        row.chainFamily,
        row.tokenContract,
        row.tokenDecimals,
        row.toAddress,
        row.description,
        row.metadata,
        row.reviewReason,
        row.refundId ?? null,
        row.notBefore ?? null,
      ],
    );
    return { ...inserted, sub_merchant_code: null };
  }

  /**
   * The merchant's payout, or null: another merchant's id is indistinguishable from an unknown
   * one, and so is a refund's internal payout.
   */
  async findForMerchant(merchantId: string, id: string): Promise<PayoutRecord | null> {
    const rows: PayoutRecord[] = await this.dataSource.query(
      `SELECT ${PAYOUT_PROJECTION} FROM ${PAYOUT_SOURCE}
        WHERE p.id = $1 AND p.merchant_id = $2 AND p.refund_id IS NULL`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  async findById(id: string): Promise<PayoutRecord | null> {
    const rows: PayoutRecord[] = await this.dataSource.query(
      `SELECT ${PAYOUT_PROJECTION} FROM ${PAYOUT_SOURCE} WHERE p.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * A refund's payout that nothing has signed, set aside because its refund was canceled (the
   * caller holds the payout's row lock and releases the refund's hold itself).
   */
  async rejectForCanceledRefund(
    manager: EntityManager,
    payoutId: string,
    reason = 'Refund canceled by the merchant.',
  ): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'Rejected', error_reason = $2,
              pending_reason = NULL, updated_at = now()
        WHERE id = $1 AND status = 'Pending' AND refund_id IS NOT NULL`,
      [payoutId, reason],
    );
  }

  /** One page, newest first, with what the pagination headers need. */
  async list(filter: PayoutListFilter, page: PageRequest): Promise<ListResult<PayoutRecord>> {
    return queryList<PayoutRecord>(this.dataSource, payoutListSpec(filter), page);
  }
}
