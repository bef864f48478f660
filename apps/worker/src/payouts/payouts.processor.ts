import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Logger, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { NetworkName } from '@app/chains';
import { APP_CONFIG, AppConfig, inSpan, inSpanContinuing, PAYOUT_JOBS, QUEUES } from '@app/common';
import { PayoutReconciler, PayoutSender, PayoutTracker } from '@app/payouts';

export interface SendPayoutJob {
  payoutId: string;
  /** The trace of the request that created the payout (tracing on), continued here. */
  traceparent?: string;
}

export interface TrackPayoutsJob {
  network: NetworkName;
}

/** Thin: each job delegates to one service; state lives in PostgreSQL, so any job may be lost or repeated. */
@Processor(QUEUES.payouts)
export class PayoutsProcessor implements OnModuleInit {
  private readonly logger = new Logger(PayoutsProcessor.name);

  constructor(
    private readonly sender: PayoutSender,
    private readonly tracker: PayoutTracker,
    private readonly reconciler: PayoutReconciler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(QUEUES.payouts) private readonly queue: Queue,
  ) {}

  /**
   * The send handler is registered here rather than with @Process: a decorator's options are
   * read when the file is imported, before the validated config exists. Concurrency is per
   * process (PAYOUT_SEND_CONCURRENCY); claims are serialized per hot wallet by its row lock anyway.
   */
  onModuleInit(): void {
    this.queue
      .process(PAYOUT_JOBS.send, this.config.payouts.sendConcurrency, (job: Job<SendPayoutJob>) =>
        this.send(job),
      )
      .catch((error: Error) => this.logger.error({ err: error }, 'Payout send handler stopped'));
  }

  async send(job: Job<SendPayoutJob>): Promise<void> {
    const { payoutId, traceparent } = job.data;
    const outcome = await inSpanContinuing(
      traceparent,
      'payout.send',
      { 'payout.id': payoutId },
      () => this.sender.send(payoutId),
    );
    this.logger.debug({ payoutId: job.data.payoutId, outcome }, 'Payout send job done');
  }

  @Process({ name: PAYOUT_JOBS.track, concurrency: 4 })
  async track(job: Job<TrackPayoutsJob>): Promise<void> {
    // A tick is a trace: its receipts read, and the completed events it writes (and their webhooks).
    await inSpan('payouts.track', { 'chain.network': job.data.network }, () =>
      this.tracker.track(job.data.network),
    );
  }

  @Process(PAYOUT_JOBS.reconcile)
  async reconcile(): Promise<void> {
    await this.reconciler.reconcile();
  }
}
