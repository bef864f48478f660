import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig, PAYOUT_JOBS, QUEUES } from '@app/common';
import { HotWallets } from '@app/payouts';
import { removeOtherSchedules, keepRescheduling } from '../repeatable-jobs';

const RECONCILE_EVERY_MS = 5_000;

/** The payouts queue's repeatable jobs: a tracker per hot-wallet network and the reconciler. */
@Injectable()
export class PayoutsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PayoutsScheduler.name);
  private stopRescheduling: (() => void) | undefined;

  constructor(
    @InjectQueue(QUEUES.payouts) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly wallets: HotWallets,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.wallets.register();
    await this.schedule();
    // Lost schedules (a Redis flush) come back without a worker restart.
    this.stopRescheduling = keepRescheduling(() => this.schedule(), this.logger, 'Payout jobs');
  }

  onApplicationShutdown(): void {
    this.stopRescheduling?.();
  }

  async schedule(): Promise<void> {
    const options = { removeOnComplete: true, removeOnFail: 100 };
    const every = this.config.payouts.trackIntervalMs;
    const networks = this.wallets.all().map((key) => key.network);
    const added = [];
    for (const network of networks) {
      added.push(
        await this.queue.add(
          PAYOUT_JOBS.track,
          { network },
          { ...options, jobId: `track:${network}`, repeat: { every } },
        ),
      );
    }
    added.push(
      await this.queue.add(
        PAYOUT_JOBS.reconcile,
        {},
        { ...options, jobId: 'reconcile', repeat: { every: RECONCILE_EVERY_MS } },
      ),
    );
    await removeOtherSchedules(this.queue, added, this.logger);
  }
}
