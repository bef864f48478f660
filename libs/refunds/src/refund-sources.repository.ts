import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** A session as a refund of it needs it, read under the session's row lock. */
export interface RefundableSession {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  livemode: boolean;
  status: 'Pending' | 'Paid' | 'Underpaid' | 'Expired';
  amount: string;
  amount_received: string;
  currency: string;
  network: string;
  chain_family: string;
  /**
   * A payment to it is detected and not yet confirmed, or reverted by a reorg and still inside the
   * watcher's reorg window (either would add to what was received).
   */
  confirming: boolean;
}

/** An unmatched transfer as a refund of it needs it, read under its row lock. */
export interface RefundableTransfer {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  livemode: boolean;
  status: 'detected' | 'reverted';
  /** In the books (`deposits` against `unmatched`): its block is confirmed. */
  booked: boolean;
  amount: string;
  currency: string;
  network: string;
}

/**
 * SQL of what may be refunded, read under row locks: the session or unmatched transfer a new
 * refund is decided on, and its refunds so far.
 */
@Injectable()
export class RefundSourcesRepository {
  /**
   * Locks the merchant's session, then reads what a refund is decided on. Refunds of one session
   * are decided one at a time, and the deposit watcher locks the sessions it may credit before it
   * reads whether they have a live refund (TransferMatcher), so the two serialize per session.
   * The facts are read in a statement after the lock is granted: under READ COMMITTED it takes a
   * fresh snapshot, which includes a tick that committed while we waited (the locking statement
   * itself would re-check only the session's row, and read session_transactions as of before).
   */
  async lockSession(
    manager: EntityManager,
    merchantId: string,
    sessionId: string,
    watchedDepthOf: (network: string) => number,
  ): Promise<RefundableSession | null> {
    const locked: Array<{ network: string }> = await manager.query(
      `SELECT network FROM checkout_sessions WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
      [sessionId, merchantId],
    );
    if (!locked.length) return null;
    // A transfer a reorg reverted is still confirming while its block is inside the window the
    // watcher re-scans (its cursor less its watched depth): mined again, it would be credited to
    // the session again, after the refund was decided on what the session had without it.
    const rows: RefundableSession[] = await manager.query(
      `SELECT id, merchant_id, sub_merchant_id, livemode, status, amount::text,
              amount_received::text, currency, network, chain_family,
              EXISTS (SELECT 1 FROM session_transactions t
                        LEFT JOIN chain_cursors c ON c.network = t.network
                       WHERE t.session_id = s.id
                         AND (t.status = 'Pending'
                              OR (t.status = 'Reverted'
                                  AND t.block_number >= c.last_scanned_block - $2))) AS confirming
         FROM checkout_sessions s WHERE id = $1`,
      [sessionId, watchedDepthOf(locked[0].network)],
    );
    return rows[0] ?? null;
  }

  /** What the session's refunds that are not Failed or Canceled add up to. */
  async refundedOfSession(manager: EntityManager, sessionId: string): Promise<string> {
    const [row]: Array<{ refunded: string }> = await manager.query(
      `SELECT COALESCE(sum(amount), 0)::text AS refunded FROM refunds
        WHERE session_id = $1 AND status NOT IN ('Failed', 'Canceled')`,
      [sessionId],
    );
    return row.refunded;
  }

  async lockUnmatchedTransfer(
    manager: EntityManager,
    merchantId: string,
    transferId: string,
  ): Promise<RefundableTransfer | null> {
    const rows: RefundableTransfer[] = await manager.query(
      `SELECT id, merchant_id, sub_merchant_id, livemode, status, booked, amount::text, currency,
              network
         FROM unmatched_transfers WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
      [transferId, merchantId],
    );
    return rows[0] ?? null;
  }

  /** The transfer's refund that is not Failed or Canceled, if any (at most one: unique index). */
  async liveRefundOfTransfer(manager: EntityManager, transferId: string): Promise<string | null> {
    const rows: Array<{ id: string }> = await manager.query(
      `SELECT id FROM refunds
        WHERE unmatched_transfer_id = $1 AND status NOT IN ('Failed', 'Canceled')`,
      [transferId],
    );
    return rows[0]?.id ?? null;
  }
}
