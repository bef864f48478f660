import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { RefundCancellation } from './refund-cancellation';
import { RefundRecord } from './refund.types';

/** The refund's `error_reason` once it expired waiting for the customer's address. */
export function expiredReason(minutes: number): string {
  const days = minutes / 1440;
  const span = Number.isInteger(days)
    ? `${days} day${days === 1 ? '' : 's'}`
    : `${minutes} minutes`;
  return `Canceled: no address was given within ${span}.`;
}

/**
 * A refund waiting for the customer's address (`requires_destination`) holds its amount; past
 * REFUND_DESTINATION_EXPIRY_MINUTES after its creation the worker cancels it (review finding 9):
 * hold released, `refund.canceled` with the reason. Each batch is one transaction over rows locked
 * with SKIP LOCKED and still `requires_destination` under the lock, so two workers never cancel one
 * refund twice, a crash leaves nothing half done, and a customer giving the address at that moment
 * either wins (the refund is `Pending`, not selected) or gets 409 after the cancel.
 */
@Injectable()
export class RefundExpiry {
  private readonly logger = new Logger(RefundExpiry.name);
  readonly expiryMinutes: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly cancellation: RefundCancellation,
  ) {
    this.expiryMinutes = config.refundDestinationExpiryMinutes;
  }

  /** Cancels every due refund, a batch per transaction, until none is left or the budget is spent. */
  async expireDue({ batchSize = 100, budgetMs = 4000 } = {}): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let canceled = 0;
    for (;;) {
      const batch = await this.expireBatch(batchSize);
      canceled += batch;
      if (batch < batchSize || Date.now() >= deadline) return canceled;
    }
  }

  private async expireBatch(limit: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      // A requires_destination refund has no payout (it is created with the address), so the
      // refund's lock is the only one to take.
      const due: RefundRecord[] = await manager.query(
        `SELECT * FROM refunds
          WHERE status = 'requires_destination'
            AND created_at <= now() - make_interval(mins => $1)
          ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.expiryMinutes, limit],
      );
      if (due.length) {
        await this.cancellation.cancelWithoutPayouts(
          manager,
          due,
          expiredReason(this.expiryMinutes),
        );
        this.logger.log(
          { refunds: due.map((refund) => refund.id) },
          'Refunds canceled: no address given in time',
        );
      }
      return due.length;
    });
  }
}
