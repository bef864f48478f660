import { Injectable } from '@nestjs/common';
import { commonListConditions, queryPageWithTotal } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotentInsert } from '@app/idempotency';
import { ChainFamily } from '@app/chains';
import { SubMerchantScope } from '@app/sub-merchants';
import { CheckoutSessionRecord, SessionStatus } from './checkout-session.entity';
import type { SessionOwner } from './checkout-session.mapper';

export interface NewSessionRow {
  id: string;
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  amount: string;
  currency: string;
  network: string;
  chainFamily: ChainFamily;
  currencyContract: string;
  keyFingerprint: string;
  pricingAmount: string;
  pricingCurrency: string;
  exchangeRate: string;
  clientReferenceId: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  lifetimeMinutes: number;
}

export interface SessionListFilter {
  merchantId: string;
  scope: SubMerchantScope;
  statuses?: SessionStatus[];
  network?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  searchText?: string;
  limit: number;
  offset: number;
}

// Transactions travel with their session in one round trip, oldest first (chain order).
const SESSION_PROJECTION = `
  s.*,
  sm.code AS sub_merchant_code, sm.name AS sub_merchant_name, sm.logo_url AS sub_merchant_logo_url,
  COALESCE((
    SELECT json_agg(json_build_object(
             'amount', t.amount::text, 'created_at', t.created_at, 'network', t.network,
             'status', t.status, 'tx_hash', t.tx_hash)
           ORDER BY t.block_number, t.log_index)
      FROM session_transactions t WHERE t.session_id = s.id), '[]'::json) AS transactions`;
const SESSION_SOURCE = `checkout_sessions s LEFT JOIN sub_merchants sm ON sm.id = s.sub_merchant_id`;

const INSERT_COLUMNS = [
  'id',
  'merchant_id',
  'sub_merchant_id',
  'livemode',
  'status',
  'amount',
  'currency',
  'network',
  'chain_family',
  'currency_contract',
  'pay_address',
  'key_fingerprint',
  'derivation_index',
  'pricing_amount',
  'pricing_currency',
  'exchange_rate',
  'client_reference_id',
  'success_url',
  'cancel_url',
  'created_at',
  'expires_at',
  'updated_at',
] as const;

/**
 * A new session as the row that will be stored, timestamps included, so its response can be built
 * before the INSERT runs (the idempotent fast path stores that response in the same statement).
 */
export function newSessionRecord(
  row: NewSessionRow,
  address: { address: string; derivationIndex: number },
  createdAt: Date,
): { record: CheckoutSessionRecord; insert: IdempotentInsert } {
  const expiresAt = new Date(createdAt.getTime() + row.lifetimeMinutes * 60_000);
  const record: CheckoutSessionRecord = {
    id: row.id,
    merchant_id: row.merchantId,
    livemode: row.livemode,
    status: 'Pending',
    amount: row.amount,
    amount_received: '0',
    fee_amount: '0',
    net_amount: '0',
    currency: row.currency,
    network: row.network,
    chain_family: row.chainFamily,
    currency_contract: row.currencyContract,
    pay_address: address.address,
    pricing_amount: row.pricingAmount,
    pricing_currency: row.pricingCurrency,
    exchange_rate: row.exchangeRate,
    client_reference_id: row.clientReferenceId,
    success_url: row.successUrl,
    cancel_url: row.cancelUrl,
    created_at: createdAt,
    expires_at: expiresAt,
    transactions: [],
  };
  const values = [
    row.id,
    row.merchantId,
    row.subMerchantId,
    row.livemode,
    'Pending',
    row.amount,
    row.currency,
    row.network,
    row.chainFamily,
    row.currencyContract,
    address.address,
    row.keyFingerprint,
    address.derivationIndex,
    row.pricingAmount,
    row.pricingCurrency,
    row.exchangeRate,
    row.clientReferenceId,
    row.successUrl,
    row.cancelUrl,
    createdAt,
    expiresAt,
    createdAt,
  ];
  return { record, insert: { table: 'checkout_sessions', columns: INSERT_COLUMNS, values } };
}

@Injectable()
export class CheckoutSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The merchant's session, or null: another merchant's id is indistinguishable from an unknown one. */
  async findForMerchant(merchantId: string, id: string): Promise<CheckoutSessionRecord | null> {
    const rows: CheckoutSessionRecord[] = await this.dataSource.query(
      `SELECT ${SESSION_PROJECTION} FROM ${SESSION_SOURCE} WHERE s.id = $1 AND s.merchant_id = $2`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /** A session and its owner as this transaction sees them (for the event of a change it made). */
  async findWithOwner(
    manager: EntityManager,
    id: string,
  ): Promise<{ record: CheckoutSessionRecord; owner: SessionOwner }> {
    const [row]: Array<
      CheckoutSessionRecord & { owner_name: string; owner_logo_url: string | null }
    > = await manager.query(
      `SELECT ${SESSION_PROJECTION}, m.name AS owner_name, m.logo_url AS owner_logo_url
           FROM ${SESSION_SOURCE} JOIN merchants m ON m.id = s.merchant_id WHERE s.id = $1`,
      [id],
    );
    return { record: row, owner: { name: row.owner_name, logoUrl: row.owner_logo_url } };
  }

  /** One page, newest first, with the total count of the filtered set. */
  async list(filter: SessionListFilter): Promise<{ rows: CheckoutSessionRecord[]; total: number }> {
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const where = commonListConditions('s', filter, bind);
    if (filter.searchText) {
      const text = bind(filter.searchText);
      where.push(`(s.id = ${text} OR lower(s.pay_address) = lower(${text}) OR s.id IN (
        SELECT session_id FROM session_transactions WHERE lower(tx_hash) = lower(${text})))`);
    }
    return queryPageWithTotal<CheckoutSessionRecord>(this.dataSource, {
      select: SESSION_PROJECTION,
      from: SESSION_SOURCE,
      countFrom: 'checkout_sessions s',
      alias: 's',
      where,
      params,
      limit: filter.limit,
      offset: filter.offset,
    });
  }
}
