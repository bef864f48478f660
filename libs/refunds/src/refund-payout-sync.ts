import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LedgerService } from '@app/ledger';
import { PayoutStatus } from '@app/payouts';
import { PayoutEvents, RefundPayoutListener, RefundPayoutRecord } from '@app/payouts/payout-events';
import { RefundEvents } from './refund-events';
import {
  refundHoldSettledEntry,
  refundReturnToUnmatchedEntry,
  reorgLossReference,
} from './refund-ledger';
import { RefundsRepository } from './refunds.repository';

/**
 * A refund follows its payout: in the transaction of each status change of the payout (its row
 * lock held; the refund's is taken after it, the order every refund change keeps), the refund
 * takes the matching status, hash, completion time or error, and its refund.* event is written.
 * A rejection at review fails the refund (the merchant did not cancel it).
 */
@Injectable()
export class RefundPayoutSync implements RefundPayoutListener, OnModuleInit {
  constructor(
    private readonly payoutEvents: PayoutEvents,
    private readonly refunds: RefundsRepository,
    private readonly events: RefundEvents,
    private readonly ledger: LedgerService,
  ) {}

  onModuleInit(): void {
    this.payoutEvents.followRefundsWith(this);
  }

  async payoutStatusChanged(
    manager: EntityManager,
    payout: RefundPayoutRecord,
    _previous: PayoutStatus,
  ): Promise<void> {
    const refund = await this.refunds.lock(manager, payout.refund_id);
    if (!refund) throw new Error(`Payout ${payout.id} names refund ${payout.refund_id}, not found`);
    switch (payout.status) {
      case 'Pending':
        return;
      case 'Processing':
        await this.refunds.setStatus(manager, refund.id, 'Processing', { txHash: payout.tx_hash });
        break;
      case 'Completed':
        await this.refunds.setStatus(manager, refund.id, 'Completed', {
          txHash: payout.tx_hash,
          completedAt: payout.completed_at,
        });
        // The payout's completion took the amount out of merchant_held; an unmatched transfer's
        // was held in refund_hold, never the merchant's (review finding 8), unless the code before
        // migration 1766320000000 held it and it was not moved: read from its entries.
        if (
          refund.unmatched_transfer_id !== null &&
          (await this.refunds.holdAccountOf(manager, refund.id)) === 'refund_hold'
        ) {
          await this.ledger.post(manager, refundHoldSettledEntry(refund));
        }
        break;
      case 'Failed':
      case 'Rejected':
        await this.refunds.setStatus(manager, refund.id, 'Failed', {
          txHash: payout.tx_hash,
          errorReason: payout.error_reason ?? 'The refund could not be sent.',
        });
        // The payout's release gave the amount to the merchant's available balance; an unmatched
        // transfer's money was never the merchant's: it goes from refund_hold back to `unmatched`.
        if (refund.unmatched_transfer_id !== null) {
          const lost = await this.sourceLost(manager, refund.id, refund.unmatched_transfer_id);
          const hold = await this.refunds.holdAccountOf(manager, refund.id);
          await this.ledger.post(manager, refundReturnToUnmatchedEntry(refund, lost, hold));
        }
        break;
    }
    await this.events.statusChanged(manager, refund.id, refund.status);
  }

  /**
   * Whether a reorg took the refunded transfer off the chain after the refund was signed (its loss
   * booked, RefundTransferReorgs): a failed refund's amount then undoes that loss rather than go
   * back to `unmatched`, which no longer owes it. Read without the transfer's lock: the watcher
   * changes it and then waits for this payout's lock, so it sees this outcome and acts on it.
   */
  private async sourceLost(
    manager: EntityManager,
    refundId: string,
    transferId: string,
  ): Promise<boolean> {
    const { booked, bookings } = await this.refunds.transferBooking(manager, transferId);
    return (
      !booked && (await this.refunds.hasEntry(manager, reorgLossReference(refundId, bookings)))
    );
  }
}
