import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { currentTraceparent, PAYOUT_JOBS, QUEUES } from '@app/common';

// An unreachable Redis must not hold the merchant's request: the reconciler enqueues later.
const ENQUEUE_TIMEOUT_MS = 1_000;

/** Producer of the `payouts` queue: one send job per payout, the job id being the payout id. */
@Injectable()
export class PayoutQueue {
  private readonly logger = new Logger(PayoutQueue.name);

  constructor(@InjectQueue(QUEUES.payouts) private readonly queue: Queue) {}

  /**
   * Adds the send job unless one with this id exists (Bull ignores a duplicate id). Best effort:
   * a failure is logged, not thrown, because the payout is already committed and the reconciler
   * re-enqueues every payout that waits without a job.
   */
  async enqueueSend(payoutId: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add(PAYOUT_JOBS.send, sendJobData(payoutId), sendJobOptions(payoutId)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('queue did not answer')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ payoutId, reason }, 'Payout not enqueued; the reconciler will');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** enqueueSend for many payouts in one round trip to Redis (a batch's), as best effort. */
  async enqueueSends(payoutIds: string[]): Promise<boolean> {
    if (!payoutIds.length) return true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.addBulk(
          payoutIds.map((payoutId) => ({
            name: PAYOUT_JOBS.send,
            data: sendJobData(payoutId),
            opts: sendJobOptions(payoutId),
          })),
        ),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('queue did not answer')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        { payouts: payoutIds.length, reason },
        'Payouts not enqueued; the reconciler will',
      );
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The payout and, when tracing is on, the trace the worker's send continues (docs/operations.md). */
export function sendJobData(payoutId: string): { payoutId: string; traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent ? { payoutId, traceparent } : { payoutId };
}

/** Finished jobs are removed so that the same id can be enqueued again later if needed. */
export function sendJobOptions(payoutId: string) {
  return { jobId: payoutId, removeOnComplete: true, removeOnFail: true, attempts: 1 };
}
