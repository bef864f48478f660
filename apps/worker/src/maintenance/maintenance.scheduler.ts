import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bull';
import { MAINTENANCE_JOBS, QUEUES } from '@app/common';
import { PURGE_REQUEST_LOG_JOB } from '@app/console/request-log';
import { removeOtherSchedules, keepRescheduling } from '../repeatable-jobs';
import { APPLY_RETENTION_JOB } from './retention/data-retention';

const EVERY_5_SECONDS = 5_000;
const EVERY_10_SECONDS = 10_000;
const EVERY_MINUTE = 60_000;
const EVERY_10_MINUTES = 600_000;
const EVERY_HOUR = 3_600_000;

/** Registers the repeatable jobs; Bull keys them by name and interval, so many workers add one. */
@Injectable()
export class MaintenanceScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MaintenanceScheduler.name);
  private stopRescheduling: (() => void) | undefined;

  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    // Fill the pool right away instead of waiting for the first tick.
    await this.queue.add(
      MAINTENANCE_JOBS.refillPayAddresses,
      {},
      { removeOnComplete: true, removeOnFail: 100 },
    );
    // Lost schedules (a Redis flush) come back without a worker restart.
    this.stopRescheduling = keepRescheduling(
      () => this.schedule(),
      this.logger,
      'Maintenance jobs',
    );
  }

  onApplicationShutdown(): void {
    this.stopRescheduling?.();
  }

  /** The repeatable jobs, and none other. */
  async schedule(): Promise<void> {
    const options = { removeOnComplete: true, removeOnFail: 100 };
    const added = [
      await this.queue.add(
        MAINTENANCE_JOBS.refillPayAddresses,
        {},
        { ...options, repeat: { every: EVERY_10_SECONDS } },
      ),
      await this.queue.add(
        MAINTENANCE_JOBS.purgeIdempotencyKeys,
        {},
        { ...options, repeat: { every: EVERY_HOUR } },
      ),
      await this.queue.add(
        MAINTENANCE_JOBS.expireSessions,
        {},
        { ...options, repeat: { every: EVERY_5_SECONDS } },
      ),
      await this.queue.add(
        MAINTENANCE_JOBS.expireRefundDestinations,
        {},
        { ...options, repeat: { every: EVERY_MINUTE } },
      ),
      await this.queue.add(
        PURGE_REQUEST_LOG_JOB,
        {},
        { ...options, repeat: { every: EVERY_HOUR } },
      ),
      // Each run is bounded in time (RETENTION_RUN_BUDGET_MS), so a backlog goes over many runs.
      await this.queue.add(
        APPLY_RETENTION_JOB,
        {},
        { ...options, repeat: { every: EVERY_10_MINUTES } },
      ),
    ];
    await removeOtherSchedules(this.queue, added, this.logger);
  }
}
