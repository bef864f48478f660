import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import { commonListConditions, ListResult, ListSpec, PageRequest, queryList } from '@app/common';
import { SubMerchantScope } from '@app/sub-merchants';
import { HoldAccount } from './refund-ledger';
import { RefundRecord, RefundStatus } from './refund.types';

export type { RefundableSession, RefundableTransfer } from './refund-sources.repository';

export interface NewRefundRow {
  id: string;
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  sessionId: string | null;
  unmatchedTransferId: string | null;
  status: 'requires_destination' | 'Pending';
  amount: string;
  fee: string;
  netAmount: string;
  currency: string;
  network: string;
  chainFamily: string;
  toAddress: string | null;
  reason: string | null;
}

export interface RefundListFilter {
  merchantId: string;
  scope: SubMerchantScope;
  statuses?: RefundStatus[];
  sessionId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

const REFUND_PROJECTION = `r.*, sm.code AS sub_merchant_code`;
const REFUND_SOURCE = `refunds r LEFT JOIN sub_merchants sm ON sm.id = r.sub_merchant_id`;

/** The refund list as SQL, with the conditions every list shares. */
export function refundListSpec(filter: RefundListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('r', filter, bind);
  if (filter.sessionId) where.push(`r.session_id = ${bind(filter.sessionId)}`);
  return {
    table: 'refunds',
    alias: 'r',
    where,
    anyOf,
    params,
    select: REFUND_PROJECTION,
    from: REFUND_SOURCE,
    merchantId: filter.merchantId,
    noun: 'refund',
  };
}

/**
 * SQL of refunds: the refund rows, their payouts and their books. What a new refund is decided on
 * (its session or unmatched transfer, under row locks) is RefundSourcesRepository's.
 */
@Injectable()
export class RefundsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The session's refunds that are not Failed or Canceled, newest first. */
  async liveRefundsOfSession(
    manager: EntityManager,
    sessionId: string,
  ): Promise<Array<{ id: string; amount: string }>> {
    return manager.query(
      `SELECT id, amount::text FROM refunds
        WHERE session_id = $1 AND status NOT IN ('Failed', 'Canceled')
        ORDER BY created_at DESC, id DESC`,
      [sessionId],
    );
  }

  /** The refunds not Failed or Canceled of these unmatched transfers (at most one each). */
  async liveRefundsOfTransfers(
    manager: EntityManager,
    transferIds: string[],
  ): Promise<Array<{ id: string; unmatched_transfer_id: string }>> {
    return manager.query(
      `SELECT id, unmatched_transfer_id FROM refunds
        WHERE unmatched_transfer_id = ANY($1::text[]) AND status NOT IN ('Failed', 'Canceled')
        ORDER BY id`,
      [transferIds],
    );
  }

  /** What the books say of an unmatched transfer now: booked or not, and its booking number. */
  async transferBooking(
    manager: EntityManager,
    transferId: string,
  ): Promise<{ booked: boolean; bookings: number }> {
    const [row]: Array<{ booked: boolean; bookings: number }> = await manager.query(
      `SELECT booked, bookings FROM unmatched_transfers WHERE id = $1`,
      [transferId],
    );
    return row;
  }

  /**
   * Where an unmatched transfer's refund is held, read from its own entries (as migration
   * 1766320000000 reads it), not from the code's version: `merchant_held` when its hold entry and
   * the `hold_moved:<n>` entries of that migration leave an amount there (held by the code before
   * it, and not moved), else `refund_hold`. Each entry is found by its reference (the unique
   * index): the hold, then hold_moved:1, 2, ... until one is missing.
   */
  async holdAccountOf(manager: EntityManager, refundId: string): Promise<HoldAccount> {
    let inMerchantHeld = new Decimal(0);
    for (let move = 0; ; move += 1) {
      const reference =
        move === 0 ? `refund:${refundId}:hold` : `refund:${refundId}:hold_moved:${move}`;
      const rows: Array<{ held: string }> = await manager.query(
        `SELECT COALESCE(sum(l.amount) FILTER (WHERE l.account LIKE 'merchant_held:%'), 0)::text
                AS held
           FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
          WHERE e.reference = $1 GROUP BY e.id`,
        [reference],
      );
      if (!rows.length) break;
      inMerchantHeld = inMerchantHeld.plus(rows[0].held);
    }
    return inMerchantHeld.isZero() ? 'refund_hold' : 'merchant_held';
  }

  /** Whether the ledger has an entry with this reference (in the caller's transaction). */
  async hasEntry(manager: EntityManager, reference: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM ledger_entries WHERE reference = $1`,
      [reference],
    );
    return rows.length > 0;
  }

  async insert(manager: EntityManager, row: NewRefundRow): Promise<RefundRecord> {
    const [inserted]: RefundRecord[] = await manager.query(
      `INSERT INTO refunds
         (id, merchant_id, sub_merchant_id, livemode, session_id, unmatched_transfer_id, status,
          amount, fee, net_amount, currency, network, chain_family, to_address, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       RETURNING *`,
      [
        row.id,
        row.merchantId,
        row.subMerchantId,
        row.livemode,
        row.sessionId,
        row.unmatchedTransferId,
        row.status,
        row.amount,
        row.fee,
        row.netAmount,
        row.currency,
        row.network,
        row.chainFamily,
        row.toAddress,
        row.reason,
      ],
    );
    return inserted;
  }

  /** The refund as the API shows it, in the caller's transaction. */
  async read(manager: EntityManager, refundId: string): Promise<RefundRecord> {
    const [row]: RefundRecord[] = await manager.query(
      `SELECT ${REFUND_PROJECTION} FROM ${REFUND_SOURCE} WHERE r.id = $1`,
      [refundId],
    );
    return row;
  }

  async lock(manager: EntityManager, refundId: string): Promise<RefundRecord | null> {
    const rows: RefundRecord[] = await manager.query(
      `SELECT * FROM refunds WHERE id = $1 FOR UPDATE`,
      [refundId],
    );
    return rows[0] ?? null;
  }

  /**
   * The payouts of the sessions' live refunds (those `liveRefundsOfSession` lists: the guard
   * may lock any of them), in id order; before settlement's ledger statement
   * (RefundReversalGuard's lock order). A live refund cannot appear meanwhile: creating one takes
   * the session's row lock, which settlement holds.
   */
  async lockPayoutsOfSessions(manager: EntityManager, sessionIds: string[]): Promise<void> {
    await manager.query(
      `SELECT p.id FROM payouts p JOIN refunds r ON r.id = p.refund_id
        WHERE r.session_id = ANY($1::text[]) AND r.status NOT IN ('Failed', 'Canceled')
        ORDER BY p.id FOR UPDATE OF p`,
      [sessionIds],
    );
  }

  /**
   * The sessions' live refunds themselves, in id order; after their payouts
   * (`lockPayoutsOfSessions`: payout row before refund row, as cancel and the worker take them)
   * and before settlement's ledger statement. A `requires_destination` refund has no payout:
   * without this the guard took its row after the statement's balance rows, while a cancel or the
   * expiry holds it and waits for those balance rows (review r5, N1).
   */
  async lockLiveRefundsOfSessions(manager: EntityManager, sessionIds: string[]): Promise<void> {
    await manager.query(
      `SELECT id FROM refunds
        WHERE session_id = ANY($1::text[]) AND status NOT IN ('Failed', 'Canceled')
        ORDER BY id FOR UPDATE`,
      [sessionIds],
    );
  }

  /** The refund's payout, locked: the lock the payout worker's claim takes too. */
  async lockPayout(
    manager: EntityManager,
    refundId: string,
  ): Promise<{ id: string; status: string } | null> {
    const rows: Array<{ id: string; status: string }> = await manager.query(
      `SELECT id, status FROM payouts WHERE refund_id = $1 FOR UPDATE`,
      [refundId],
    );
    return rows[0] ?? null;
  }

  /** The merchant's refund, or null: another merchant's id is indistinguishable from an unknown one. */
  async findForMerchant(merchantId: string, refundId: string): Promise<RefundRecord | null> {
    const rows: RefundRecord[] = await this.dataSource.query(
      `SELECT ${REFUND_PROJECTION} FROM ${REFUND_SOURCE} WHERE r.id = $1 AND r.merchant_id = $2`,
      [refundId, merchantId],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the refund's session and tells whether it turned Paid after the refund was created: the
   * refund was decided on an unpaid session, and sending it now would refund a paid order.
   */
  async lockSessionPaidSince(
    manager: EntityManager,
    sessionId: string,
    refundCreatedAt: Date,
  ): Promise<boolean> {
    const [row]: Array<{ paid_since: boolean }> = await manager.query(
      `SELECT (status = 'Paid' AND paid_at > $2) AS paid_since
         FROM checkout_sessions WHERE id = $1 FOR UPDATE`,
      [sessionId, refundCreatedAt],
    );
    return row?.paid_since ?? false;
  }

  /** Whether the session was paid after `refundCreatedAt` (the hosted page's read, no lock). */
  async sessionPaidSince(sessionId: string, refundCreatedAt: Date): Promise<boolean> {
    const [row]: Array<{ paid_since: boolean }> = await this.dataSource.query(
      `SELECT (status = 'Paid' AND paid_at > $2) AS paid_since FROM checkout_sessions WHERE id = $1`,
      [sessionId, refundCreatedAt],
    );
    return row?.paid_since ?? false;
  }

  /** A session's refund, for its hosted page (no merchant: the session id is the credential). */
  async findForSession(sessionId: string, refundId: string): Promise<RefundRecord | null> {
    const rows: RefundRecord[] = await this.dataSource.query(
      `SELECT ${REFUND_PROJECTION} FROM ${REFUND_SOURCE} WHERE r.id = $1 AND r.session_id = $2`,
      [refundId, sessionId],
    );
    return rows[0] ?? null;
  }

  async list(filter: RefundListFilter, page: PageRequest): Promise<ListResult<RefundRecord>> {
    return queryList<RefundRecord>(this.dataSource, refundListSpec(filter), page);
  }

  /**
   * The customer's address taken: the refund is `Pending` with it and, with a delay, may not be
   * sent before `send_after` (the database's clock, as the payout worker's). Returns it.
   */
  async takeDestination(
    manager: EntityManager,
    refundId: string,
    toAddress: string,
    delaySeconds: number,
  ): Promise<Date | null> {
    // TypeORM answers [rows, count] for an UPDATE ... RETURNING.
    const [[row]]: [Array<{ send_after: Date | null }>, number] = await manager.query(
      `UPDATE refunds
          SET status = 'Pending', to_address = $2, updated_at = now(),
              send_after = CASE WHEN $3::double precision > 0
                                THEN now() + make_interval(secs => $3::double precision) END
        WHERE id = $1
        RETURNING send_after`,
      [refundId, toAddress, delaySeconds],
    );
    return row.send_after;
  }

  async setStatus(
    manager: EntityManager,
    refundId: string,
    status: RefundStatus,
    details: {
      toAddress?: string;
      txHash?: string | null;
      errorReason?: string | null;
      /** The payout's completion time: the refund completes in the same transaction. */
      completedAt?: Date | null;
      canceled?: boolean;
    } = {},
  ): Promise<void> {
    await manager.query(
      `UPDATE refunds
          SET status = $2, to_address = COALESCE($3, to_address), tx_hash = COALESCE($4, tx_hash),
              error_reason = COALESCE($5, error_reason),
              completed_at = COALESCE($6, completed_at),
              canceled_at = CASE WHEN $7 THEN now() ELSE canceled_at END, updated_at = now()
        WHERE id = $1`,
      [
        refundId,
        status,
        details.toAddress ?? null,
        details.txHash ?? null,
        details.errorReason ?? null,
        details.completedAt ?? null,
        details.canceled ?? false,
      ],
    );
  }
}
