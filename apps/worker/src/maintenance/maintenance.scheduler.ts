import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bull';
import { MAINTENANCE_JOBS, QUEUES } from '@app/common';
import { removeOtherSchedules } from '../repeatable-jobs';

const EVERY_5_SECONDS = 5_000;
const EVERY_10_SECONDS = 10_000;
const EVERY_HOUR = 3_600_000;
// Repeatable jobs live in Redis: a flush or a restart without persistence loses them, and a stale
// one running at its removal schedules itself again. Registering is idempotent, so the worker
// does it periodically (as the payouts scheduler does).
const RESCHEDULE_EVERY_MS = 15_000;

/** Registers the repeatable jobs; Bull keys them by name and interval, so many workers add one. */
@Injectable()
export class MaintenanceScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MaintenanceScheduler.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.schedule();
    // Fill the pool right away instead of waiting for the first tick.
    await this.queue.add(
      MAINTENANCE_JOBS.refillPayAddresses,
      {},
      { removeOnComplete: true, removeOnFail: 100 },
    );
    this.timer = setInterval(() => {
      this.schedule().catch((error: unknown) =>
        this.logger.warn({ reason: String(error) }, 'Maintenance jobs not rescheduled; retrying'),
      );
    }, RESCHEDULE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
    ];
    await removeOtherSchedules(this.queue, added, this.logger);
  }
}
