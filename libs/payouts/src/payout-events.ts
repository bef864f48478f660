import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventType, EventWriter } from '@app/events';
import { completeBatchIfFinished } from './batches/payout-batch-completion';
import { toPayoutDto } from './payout.mapper';
import { PayoutRecord, PayoutStatus } from './payout.types';

const STATUS_EVENT: Record<PayoutStatus, EventType> = {
  Pending: 'payout.created',
  Processing: 'payout.processing',
  Completed: 'payout.completed',
  Failed: 'payout.failed',
  Rejected: 'payout.rejected',
};

/** The internal payout that sends a refund (payouts.refund_id set). */
export type RefundPayoutRecord = PayoutRecord & { refund_id: string };

/**
 * What a refund's payout tells its refund, in the transaction of each status change (the payout's
 * row lock held). Implemented by libs/refunds, which depends on payouts, not the other way round.
 */
export interface RefundPayoutListener {
  payoutStatusChanged(
    manager: EntityManager,
    payout: RefundPayoutRecord,
    previousStatus: PayoutStatus,
  ): Promise<void>;
}

/**
 * A payout's event, written in the transaction that changed its status (the payout's row lock
 * held), with the payout as the API returns it after the change.
 */
@Injectable()
export class PayoutEvents {
  private refundListener: RefundPayoutListener | null = null;

  constructor(private readonly events: EventWriter) {}

  /** Called once by the refunds' module at start, in every process that changes payouts. */
  followRefundsWith(listener: RefundPayoutListener): void {
    this.refundListener = listener;
  }

  /**
   * After a status change made in this transaction: reads the payout as it now stands. Every
   * status change of a payout comes through here, so this is also where the last item of a
   * batch to become final completes its batch (payout_batch.completed, exactly once).
   */
  async statusChanged(
    manager: EntityManager,
    payoutId: string,
    previousStatus: PayoutStatus,
  ): Promise<void> {
    const [row]: PayoutRecord[] = await manager.query(
      `SELECT p.*, sm.code AS sub_merchant_code
         FROM payouts p LEFT JOIN sub_merchants sm ON sm.id = p.sub_merchant_id WHERE p.id = $1`,
      [payoutId],
    );
    const refundId = (row as PayoutRecord & { refund_id?: string | null }).refund_id;
    if (refundId) {
      // Not a payout of the merchant's: its refund follows it, and only refund.* events are sent.
      // Without the refunds' listener the change is refused (rolled back), never left unfollowed.
      if (!this.refundListener) {
        throw new Error(
          `Payout ${payoutId} sends refund ${refundId}, but this process has no refund listener (import RefundPayoutsModule)`,
        );
      }
      await this.refundListener.payoutStatusChanged(
        manager,
        { ...row, refund_id: refundId },
        previousStatus,
      );
      return;
    }
    await this.record(manager, row, previousStatus);
    await completeBatchIfFinished(manager, this.events, row, previousStatus);
  }

  /** `previousStatus` null: the payout was just created. */
  async record(
    manager: EntityManager,
    row: PayoutRecord,
    previousStatus: PayoutStatus | null,
  ): Promise<void> {
    await this.events.record(manager, {
      type: STATUS_EVENT[row.status],
      merchantId: row.merchant_id,
      subMerchantId: row.sub_merchant_id,
      subMerchantCode: row.sub_merchant_code,
      objectType: 'payout',
      objectId: row.id,
      previousStatus,
      data: { object: toPayoutDto(row) },
    });
  }
}
