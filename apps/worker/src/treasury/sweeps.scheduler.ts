import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig, QUEUES, TREASURY_JOBS } from '@app/common';
import { SweepKeys, TreasurySweeps } from '@app/treasury';
import { keepRescheduling, removeOtherSchedules } from '../repeatable-jobs';

/** One repeatable sweep job per network that can sweep (settings, sweeper key, deposit key). */
@Injectable()
export class SweepsScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepsScheduler.name);
  private stopRescheduling: (() => void) | undefined;

  constructor(
    @InjectQueue(QUEUES.treasury) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SweepKeys,
    private readonly sweeps: TreasurySweeps,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keys.register();
    await this.schedule();
    this.stopRescheduling = keepRescheduling(() => this.schedule(), this.logger, 'Sweep jobs');
  }

  onApplicationShutdown(): void {
    this.stopRescheduling?.();
  }

  async schedule(): Promise<void> {
    const every = this.config.treasury.sweepIntervalMs;
    const added = [];
    for (const network of this.sweeps.networks()) {
      added.push(
        await this.queue.add(
          TREASURY_JOBS.sweep,
          { network },
          {
            removeOnComplete: true,
            removeOnFail: 100,
            jobId: `sweep:${network}`,
            repeat: { every },
          },
        ),
      );
    }
    await removeOtherSchedules(this.queue, added, this.logger, TREASURY_JOBS.sweep);
  }
}
