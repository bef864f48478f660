import { Injectable, Logger } from '@nestjs/common';
import { PayoutQueue } from '../payout-queue';
import { PayoutJournalRepository } from './payout-journal.repository';

const BATCH_SIZE = 500;

/**
 * Re-enqueues every payout that may be sent now. Its send job may never have been added (the API
 * could not reach Redis), or was lost (Redis flushed), or waited out a retry delay. Adding a job
 * whose id exists is a no-op in Bull, so running this often costs nothing.
 */
@Injectable()
export class PayoutReconciler {
  private readonly logger = new Logger(PayoutReconciler.name);

  constructor(
    private readonly journal: PayoutJournalRepository,
    private readonly queue: PayoutQueue,
  ) {}

  async reconcile(): Promise<number> {
    const due = await this.journal.dueForSending(BATCH_SIZE);
    for (const payoutId of due) await this.queue.enqueueSend(payoutId);
    if (due.length) this.logger.debug({ enqueued: due.length }, 'Payouts re-enqueued');
    return due.length;
  }
}
