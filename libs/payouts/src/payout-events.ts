import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventType, EventWriter } from '@app/events';
import { toPayoutDto } from './payout.mapper';
import { PayoutRecord, PayoutStatus } from './payout.types';

const STATUS_EVENT: Record<PayoutStatus, EventType> = {
  Pending: 'payout.created',
  Processing: 'payout.processing',
  Completed: 'payout.completed',
  Failed: 'payout.failed',
  Rejected: 'payout.rejected',
};

/**
 * A payout's event, written in the transaction that changed its status (the payout's row lock
 * held), with the payout as the API returns it after the change.
 */
@Injectable()
export class PayoutEvents {
  constructor(private readonly events: EventWriter) {}

  /** After a status change made in this transaction: reads the payout as it now stands. */
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
    await this.record(manager, row, previousStatus);
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
