import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig, QUEUES, RECONCILIATION_JOBS } from '@app/common';
import { keepRescheduling, removeOtherSchedules } from '../repeatable-jobs';

/**
 * Reconciliation's two schedules (docs/treasury.md, "Reconciliation"): an incremental run every
 * TREASURY_RECONCILE_INTERVAL_MS and a full one every TREASURY_RECONCILE_FULL_INTERVAL_MS; and
 * the pass that makes booked fees final ("Fees become final"), as often as the incremental run.
 */
@Injectable()
export class ReconcileScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconcileScheduler.name);
  private stopRescheduling: (() => void) | undefined;

  constructor(
    @InjectQueue(QUEUES.reconciliation) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    this.stopRescheduling = keepRescheduling(
      () => this.schedule(),
      this.logger,
      'Reconciliation jobs',
    );
  }

  onApplicationShutdown(): void {
    this.stopRescheduling?.();
  }

  async schedule(): Promise<void> {
    const options = { removeOnComplete: true, removeOnFail: 100 };
    const { reconcileIntervalMs, reconcileFullIntervalMs } = this.config.treasury;
    const added = [
      await this.queue.add(
        RECONCILIATION_JOBS.incremental,
        {},
        { ...options, repeat: { every: reconcileIntervalMs } },
      ),
      await this.queue.add(
        RECONCILIATION_JOBS.full,
        {},
        { ...options, repeat: { every: reconcileFullIntervalMs } },
      ),
      // Fees become final on the incremental run's clock: the books it compares include them.
      await this.queue.add(
        RECONCILIATION_JOBS.finalizeFees,
        {},
        { ...options, repeat: { every: reconcileIntervalMs } },
      ),
    ];
    await removeOtherSchedules(this.queue, added, this.logger);
  }
}
