import { Injectable } from '@nestjs/common';
import { commonListConditions, ListResult, ListSpec, PageRequest, queryList } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotentInsert, InsertShape } from '@app/idempotency';
import { ChainFamily } from '@app/chains';
import { SubMerchantScope } from '@app/sub-merchants';
import {
  PUBLIC_SESSION_COLUMNS,
  PublicSessionRecord,
  SessionStatus,
} from './checkout-session.entity';
import { FeeRule } from './settlement/fee-rule';

export interface NewSessionRow {
  id: string;
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  amount: string;
  /**
   * The configured default fee rule. The INSERT itself stores the merchant's own rule in its place
   * where the merchant has one, so the rule in force at creation is kept for every later settlement.
   */
  defaultFeeRule: FeeRule;
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
}

// Transactions travel with their session in one round trip, oldest first (chain order).
const SESSION_PROJECTION = `
  ${PUBLIC_SESSION_COLUMNS.map((column) => `s.${column}`).join(', ')},
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
  'fee_percent',
  'fee_fixed',
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

// The merchant's own fee rule, part by part, else the default passed as the parameter: read by the
// INSERT rather than by a query before it (see docs/decisions.md, "fee rule stored on the session").
const merchantFeeOr =
  (part: 'fee_percent' | 'fee_fixed') =>
  (param: (column: string) => string): string =>
    `COALESCE((SELECT ${part} FROM merchants WHERE id = ${param('merchant_id')}), ${param(part)}::numeric)`;

const INSERT_SHAPE: InsertShape = {
  table: 'checkout_sessions',
  columns: INSERT_COLUMNS,
  expressions: { fee_percent: merchantFeeOr('fee_percent'), fee_fixed: merchantFeeOr('fee_fixed') },
};

/**
 * A new session as the row that will be stored, timestamps included, so its response can be built
 * before the INSERT runs (the idempotent fast path stores that response in the same statement).
 */
export function newSessionRecord(
  row: NewSessionRow,
  address: { address: string; derivationIndex: number },
  createdAt: Date,
): { record: PublicSessionRecord; insert: IdempotentInsert } {
  const expiresAt = new Date(createdAt.getTime() + row.lifetimeMinutes * 60_000);
  const record: PublicSessionRecord = {
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
    row.defaultFeeRule.percent.toFixed(),
    row.defaultFeeRule.fixed.toFixed(),
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
  return { record, insert: { shape: INSERT_SHAPE, values } };
}

/**
 * The session list as SQL. A search is an exact lookup on each key the text could be (session id,
 * pay address, transaction hash), each by its own index, merged; never one OR across them, which
 * no index can serve. Addresses and hashes compare lower-cased: EVM hex arrives in either case.
 */
export function sessionListSpec(filter: SessionListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('s', filter, bind);
  if (filter.searchText) {
    // Several statuses with a search: the search's few hits are filtered, not merged by status.
    if (anyOf.length) where.push(`(${anyOf.splice(0).join(' OR ')})`);
    const text = bind(filter.searchText);
    anyOf.push(
      `s.id = ${text}`,
      `lower(s.pay_address) = lower(${text})`,
      `s.id IN (SELECT t.session_id FROM session_transactions t
                 WHERE lower(t.tx_hash) = lower(${text}))`,
    );
  }
  return {
    table: 'checkout_sessions',
    alias: 's',
    where,
    anyOf,
    params,
    select: SESSION_PROJECTION,
    from: SESSION_SOURCE,
    merchantId: filter.merchantId,
    noun: 'checkout session',
  };
}

@Injectable()
export class CheckoutSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The merchant's session, or null: another merchant's id is indistinguishable from an unknown one. */
  async findForMerchant(
    merchantId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PublicSessionRecord | null> {
    const rows: PublicSessionRecord[] = await manager.query(
      `SELECT ${SESSION_PROJECTION} FROM ${SESSION_SOURCE} WHERE s.id = $1 AND s.merchant_id = $2`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /** One page, newest first, with what the pagination headers need. */
  async list(
    filter: SessionListFilter,
    page: PageRequest,
  ): Promise<ListResult<PublicSessionRecord>> {
    return queryList<PublicSessionRecord>(this.dataSource, sessionListSpec(filter), page);
  }
}
