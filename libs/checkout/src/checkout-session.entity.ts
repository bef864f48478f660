import { Column, Entity, PrimaryColumn } from 'typeorm';

export const SESSION_STATUSES = ['Pending', 'Paid', 'Underpaid', 'Expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Schema of checkout_sessions for TypeORM; hot paths use CheckoutSessionRecord with plain SQL. */
@Entity('checkout_sessions')
export class CheckoutSessionEntity {
  @PrimaryColumn('text') id: string;
  @Column('text', { name: 'merchant_id' }) merchantId: string;
  @Column('text', { name: 'sub_merchant_id', nullable: true }) subMerchantId: string | null;
  @Column('boolean') livemode: boolean;
  @Column('text') status: SessionStatus;
  @Column('numeric', { precision: 38, scale: 18 }) amount: string;
  @Column('numeric', { name: 'amount_received', precision: 38, scale: 18 }) amountReceived: string;
  @Column('numeric', { name: 'fee_amount', precision: 38, scale: 18 }) feeAmount: string;
  @Column('numeric', { name: 'net_amount', precision: 38, scale: 18 }) netAmount: string;
  /** The fee rule in force when the session was created; settlement charges it, never a later one. */
  @Column('numeric', { name: 'fee_percent', precision: 7, scale: 4 }) feePercent: string;
  @Column('numeric', { name: 'fee_fixed', precision: 38, scale: 18 }) feeFixed: string;
  @Column('text') currency: string;
  @Column('text') network: string;
  @Column('text', { name: 'chain_family' }) chainFamily: string;
  @Column('text', { name: 'currency_contract' }) currencyContract: string;
  @Column('text', { name: 'pay_address' }) payAddress: string;
  @Column('text', { name: 'key_fingerprint' }) keyFingerprint: string;
  @Column('integer', { name: 'derivation_index' }) derivationIndex: number;
  @Column('numeric', { name: 'pricing_amount', precision: 38, scale: 18 }) pricingAmount: string;
  @Column('text', { name: 'pricing_currency' }) pricingCurrency: string;
  @Column('numeric', { name: 'exchange_rate', precision: 24, scale: 8 }) exchangeRate: string;
  @Column('text', { name: 'client_reference_id', nullable: true }) clientReferenceId: string | null;
  @Column('text', { name: 'success_url', nullable: true }) successUrl: string | null;
  @Column('text', { name: 'cancel_url', nullable: true }) cancelUrl: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
}

/** A row of checkout_sessions as PostgreSQL returns it, with its transactions aggregated. */
export interface CheckoutSessionRecord {
  id: string;
  merchant_id: string;
  /** Present on rows read from the table. */
  sub_merchant_id?: string | null;
  livemode: boolean;
  status: SessionStatus;
  amount: string;
  amount_received: string;
  fee_amount: string;
  net_amount: string;
  /** The fee rule stored at creation (internal: never part of the public object). */
  fee_percent: string;
  fee_fixed: string;
  currency: string;
  network: string;
  chain_family: string;
  currency_contract: string;
  pay_address: string;
  pricing_amount: string;
  pricing_currency: string;
  exchange_rate: string;
  client_reference_id: string | null;
  success_url: string | null;
  cancel_url: string | null;
  created_at: Date;
  expires_at: Date;
  transactions: SessionTransactionRecord[];
  /** Joined from sub_merchants on reads; absent on freshly inserted rows. */
  sub_merchant_code?: string | null;
  sub_merchant_name?: string | null;
  sub_merchant_logo_url?: string | null;
}

/**
 * The columns the public object is built from (the mapper's), not `s.*`: the fee rule, the key
 * fingerprint, the derivation index and the bookkeeping columns stay in the database, and a page
 * of a hundred sessions parses 22 columns a row instead of 29 (two timestamps fewer to decode).
 */
export const PUBLIC_SESSION_COLUMNS = [
  'id',
  'merchant_id',
  'sub_merchant_id',
  'livemode',
  'status',
  'amount',
  'amount_received',
  'fee_amount',
  'net_amount',
  'currency',
  'network',
  'chain_family',
  'currency_contract',
  'pay_address',
  'pricing_amount',
  'pricing_currency',
  'exchange_rate',
  'client_reference_id',
  'success_url',
  'cancel_url',
  'created_at',
  'expires_at',
] as const;

/** What the public object is built from: everything but the internal fee rule. */
export type PublicSessionRecord = Omit<CheckoutSessionRecord, 'fee_percent' | 'fee_fixed'>;

export interface SessionTransactionRecord {
  amount: string;
  created_at: string;
  network: string;
  status: string;
  tx_hash: string;
}
