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
import { removeOtherSchedules } from '../repeatable-jobs';

const RECONCILE_EVERY_MS = 5_000;
// Repeatable jobs live in Redis: after a flush or a Redis restart without persistence they are
// gone. Registering them again is idempotent (Bull keys them), so the worker does it periodically.
const RESCHEDULE_EVERY_MS = 15_000;

/** The payouts queue's repeatable jobs: a tracker per hot-wallet network and the reconciler. */
@Injectable()
export class PayoutsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PayoutsScheduler.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @InjectQueue(QUEUES.payouts) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly wallets: HotWallets,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.wallets.register();
    await this.schedule();
    this.timer = setInterval(() => {
      this.schedule().catch((error: unknown) =>
        this.logger.warn({ reason: String(error) }, 'Payout jobs not rescheduled; retrying'),
      );
    }, RESCHEDULE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
