import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventType, EventWriter } from '@app/events';
import { toRefundDto } from './refund.mapper';
import { RefundRecord, RefundStatus } from './refund.types';
import { RefundsRepository } from './refunds.repository';

/** The event of a refund that has just reached `status`, coming from `previous`. */
function eventTypeOf(status: RefundStatus, previous: RefundStatus | null): EventType {
  switch (status) {
    case 'requires_destination':
      return 'refund.created';
    case 'Pending':
      return previous === null ? 'refund.created' : 'refund.pending';
    case 'Processing':
      return 'refund.processing';
    case 'Completed':
      return 'refund.completed';
    case 'Failed':
      return 'refund.failed';
    case 'Canceled':
      return 'refund.canceled';
  }
}

/**
 * A refund's event, written in the transaction that changed its status (the refund's row lock
 * held, or its UPDATE's), with the refund as the API returns it after the change.
 */
@Injectable()
export class RefundEvents {
  constructor(
    private readonly events: EventWriter,
    private readonly refunds: RefundsRepository,
  ) {}

  /** `previous` null: the refund was just created. Returns the refund as it now stands. */
  async statusChanged(
    manager: EntityManager,
    refundId: string,
    previous: RefundStatus | null,
  ): Promise<RefundRecord> {
    const row = await this.refunds.read(manager, refundId);
    await this.events.record(manager, {
      type: eventTypeOf(row.status, previous),
      merchantId: row.merchant_id,
      subMerchantId: row.sub_merchant_id,
      subMerchantCode: row.sub_merchant_code,
      objectType: 'refund',
      objectId: row.id,
      previousStatus: previous,
      data: { object: toRefundDto(row) },
    });
    return row;
  }
}
