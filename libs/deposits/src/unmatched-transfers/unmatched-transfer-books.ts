import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { LedgerService, unmatchedTransferEntry } from '@app/ledger';

interface BookableRow {
  id: string;
  network: string;
  currency: string;
  amount: string;
  bookings: number;
  block_number: string;
  block_hash: string;
}

/** An unmatched transfer whose booking just changed, as its refund needs it. */
export interface RebookedTransfer {
  id: string;
  /** Its booking number: the one just posted, or the one just reversed. */
  booking: number;
}

/**
 * Told, in the deposit watcher's (or chain reset's) transaction and with the transfers' row locks
 * held, of the transfers just reversed (before the reversal's entries are posted) and just booked
 * again, so a refund of one can follow (docs/refunds.md, "Late payments and reorgs"). Implemented
 * by libs/refunds, which depends on checkout, not the other way round.
 */
export interface UnmatchedBookingListener {
  transfersReversed(manager: EntityManager, transfers: RebookedTransfer[]): Promise<void>;
  transfersBooked(manager: EntityManager, transfers: RebookedTransfer[]): Promise<void>;
}

// ledger_lines.amount is numeric(38, 18). No watched token has a supply near this; an amount
// beyond it (a token gone wrong) is reported, never allowed to fail the watcher's tick.
const LARGEST_BOOKABLE = new Decimal('1e20');

/**
 * Unmatched transfers in the books (docs/treasury.md): tokens on our deposit addresses that are
 * no merchant's, owed back to their sender (`deposits` against the `unmatched` liability). Booked
 * once their block is confirmed, reversed if a reorg takes them away, always in the deposit
 * watcher's transaction that changes their state; `booked` on the row is what the books say.
 */
@Injectable()
export class UnmatchedTransferBooks {
  private readonly logger = new Logger(UnmatchedTransferBooks.name);
  private refundListener: UnmatchedBookingListener | null = null;

  constructor(private readonly ledger: LedgerService) {}

  /** Called once by the refunds' module at start, in every process that imports it. */
  followRefundsWith(listener: UnmatchedBookingListener): void {
    this.refundListener = listener;
  }

  /**
   * Books every detected transfer of the network at or below `deepest` (the confirmed block) not
   * booked yet and whose block `canBook` vouches for. Returns how many were booked.
   */
  async bookConfirmed(
    manager: EntityManager,
    network: string,
    deepest: number,
    canBook: (transfer: { block_number: string; block_hash: string }) => boolean,
  ): Promise<number> {
    const rows: BookableRow[] = await manager.query(
      `SELECT id, network, currency, amount, bookings, block_number, block_hash
         FROM unmatched_transfers
        WHERE network = $1 AND status = 'detected' AND NOT booked AND block_number <= $2
        ORDER BY id FOR UPDATE`,
      [network, deepest],
    );
    const due = rows.filter((row) => canBook(row) && this.bookable(row));
    if (!due.length) return 0;
    // First, as for a reversal: a refund's locks are taken before this posting's balance locks.
    await this.refundListener?.transfersBooked(
      manager,
      due.map((row) => ({ id: row.id, booking: row.bookings + 1 })),
    );
    await this.ledger.postMany(
      manager,
      due.map((row) =>
        unmatchedTransferEntry({
          id: row.id,
          network: row.network,
          currency: row.currency,
          amount: new Decimal(row.amount),
          booking: row.bookings + 1,
          reversal: false,
        }),
      ),
    );
    await manager.query(
      `UPDATE unmatched_transfers SET booked = true, bookings = bookings + 1, updated_at = now()
        WHERE id = ANY($1::text[])`,
      [due.map((row) => row.id)],
    );
    return due.length;
  }

  /** Reverses the booking of every booked transfer of the network that is now reverted. */
  async reverseReverted(manager: EntityManager, network: string): Promise<number> {
    const rows: BookableRow[] = await manager.query(
      // A CTE: an UPDATE's RETURNING reaches TypeORM as [rows, count], a SELECT as rows.
      `WITH reversed AS (
         UPDATE unmatched_transfers SET booked = false, updated_at = now()
          WHERE network = $1 AND status = 'reverted' AND booked
          RETURNING id, network, currency, amount, bookings, block_number, block_hash)
       SELECT * FROM reversed`,
      [network],
    );
    if (!rows.length) return 0;
    // First: a refund not signed yet is canceled (its hold back to `unmatched`) before the
    // reversal takes the amount out of `unmatched`, and the refund's locks (payout, refund) are
    // taken before this posting's balance locks, the order the payout worker keeps.
    await this.refundListener?.transfersReversed(
      manager,
      rows.map((row) => ({ id: row.id, booking: row.bookings })),
    );
    await this.ledger.postMany(
      manager,
      rows.map((row) =>
        unmatchedTransferEntry({
          id: row.id,
          network: row.network,
          currency: row.currency,
          amount: new Decimal(row.amount),
          booking: row.bookings,
          reversal: true,
        }),
      ),
    );
    return rows.length;
  }

  private bookable(row: BookableRow): boolean {
    if (new Decimal(row.amount).lessThan(LARGEST_BOOKABLE)) return true;
    this.logger.error(
      { unmatchedTransferId: row.id, network: row.network, amount: row.amount },
      'Unmatched transfer too large for the ledger: not booked, reconciliation will show it',
    );
    return false;
  }
}
