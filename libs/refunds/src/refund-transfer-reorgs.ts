import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { RebookedTransfer, UnmatchedBookingListener, UnmatchedTransferBooks } from '@app/deposits';
import { LedgerService } from '@app/ledger';
import { RefundCancellation } from './refund-cancellation';
import {
  refundReorgLossEntry,
  refundReorgRecoveredEntry,
  reorgLossReference,
} from './refund-ledger';
import { UNREFUNDED_STATUSES } from './refund.types';
import { RefundsRepository } from './refunds.repository';

export const REVERSED_TRANSFER_REASON =
  'Canceled: the transfer it refunded was reversed by a chain reorganization.';

/**
 * A reorg took an unmatched transfer off the chain after it was refunded (docs/refunds.md, "Late
 * payments and reorgs"). In the deposit watcher's transaction (the transfers' row locks held),
 * before the reversal is posted:
 *
 * - a refund nothing has signed (`Pending`, its payout not claimed) is canceled, its hold back to
 *   `unmatched`, which the reversal then empties: the merchant may refund again if it comes back;
 * - a refund already signed or sent is on the chain: its amount is booked as a loss
 *   (`refund:<id>:reorg_loss:<n>`, `refund_losses` against `unmatched`) and logged at error, for an
 *   operator to review. The loss is undone if the transfer is booked again
 *   (`reorg_recovered:<n+1>`) or if the refund fails after all (its return goes to the loss).
 *
 * Locks: transfer, payout, refund (the payout worker takes payout, refund; neither takes a
 * transfer's after them).
 */
@Injectable()
export class RefundTransferReorgs implements UnmatchedBookingListener, OnModuleInit {
  private readonly logger = new Logger(RefundTransferReorgs.name);

  constructor(
    private readonly books: UnmatchedTransferBooks,
    private readonly refunds: RefundsRepository,
    private readonly cancellation: RefundCancellation,
    private readonly ledger: LedgerService,
  ) {}

  onModuleInit(): void {
    this.books.followRefundsWith(this);
  }

  async transfersReversed(manager: EntityManager, transfers: RebookedTransfer[]): Promise<void> {
    for (const { refundId, booking } of await this.refundsOf(manager, transfers)) {
      const payout = await this.refunds.lockPayout(manager, refundId);
      const refund = await this.refunds.lock(manager, refundId);
      if (!refund || UNREFUNDED_STATUSES.includes(refund.status)) continue;
      // An unmatched transfer's refund gets its payout in the transaction that creates it: one
      // without is a broken invariant, not a loss to book (it would never be sent nor released).
      if (!payout) throw new Error(`Refund ${refundId} is ${refund.status} without a payout`);
      if (refund.status === 'Pending' && payout.status === 'Pending') {
        await this.cancellation.cancelLocked(manager, refund, payout.id, REVERSED_TRANSFER_REASON);
        continue;
      }
      if (await this.ledger.post(manager, refundReorgLossEntry(refund, booking))) {
        this.logger.error(
          {
            refundId,
            unmatchedTransferId: refund.unmatched_transfer_id,
            status: refund.status,
            amount: refund.amount,
            currency: refund.currency,
            network: refund.network,
          },
          'A reorg reversed an unmatched transfer whose refund was already signed: its amount is booked as a loss to review (refund_losses)',
        );
      }
    }
  }

  async transfersBooked(manager: EntityManager, transfers: RebookedTransfer[]): Promise<void> {
    for (const { refundId, booking } of await this.refundsOf(manager, transfers)) {
      // Only a refund signed when the transfer was reversed had its loss booked.
      if (!(await this.refunds.hasEntry(manager, reorgLossReference(refundId, booking - 1)))) {
        continue;
      }
      // Same locks as a failure of the refund, which would move the loss the other way.
      await this.refunds.lockPayout(manager, refundId);
      const refund = await this.refunds.lock(manager, refundId);
      if (!refund || UNREFUNDED_STATUSES.includes(refund.status)) continue;
      if (await this.ledger.post(manager, refundReorgRecoveredEntry(refund, booking))) {
        this.logger.warn(
          { refundId, unmatchedTransferId: refund.unmatched_transfer_id, booking },
          'An unmatched transfer reversed after its refund was signed is on the chain again: its loss is undone',
        );
      }
    }
  }

  /** The live refunds of these transfers, with the booking each event concerns. */
  private async refundsOf(
    manager: EntityManager,
    transfers: RebookedTransfer[],
  ): Promise<Array<{ refundId: string; booking: number }>> {
    if (!transfers.length) return [];
    const booking = new Map(transfers.map((transfer) => [transfer.id, transfer.booking]));
    const live = await this.refunds.liveRefundsOfTransfers(manager, [...booking.keys()]);
    return live.map((refund) => ({
      refundId: refund.id,
      booking: booking.get(refund.unmatched_transfer_id) as number,
    }));
  }
}
