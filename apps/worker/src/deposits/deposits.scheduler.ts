import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { NETWORK_NAMES, NetworkName } from '@app/chains';
import { APP_CONFIG, AppConfig, DEPOSIT_JOBS, QUEUES } from '@app/common';

/** One repeatable scan job per watched network (WATCH_NETWORKS), every DEPOSIT_SCAN_INTERVAL_MS. */
@Injectable()
export class DepositsScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(DepositsScheduler.name);

  constructor(
    @InjectQueue(QUEUES.deposits) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  watchedNetworks(): NetworkName[] {
    if (this.config.watchNetworks === 'all') return [...NETWORK_NAMES];
    for (const name of this.config.watchNetworks) {
      if (!NETWORK_NAMES.includes(name as NetworkName)) {
        throw new Error(
          `WATCH_NETWORKS: unknown network ${name}; use ${NETWORK_NAMES.join(', ')}.`,
        );
      }
    }
    return this.config.watchNetworks as NetworkName[];
  }

  async onApplicationBootstrap(): Promise<void> {
    const networks = this.watchedNetworks();
    const every = this.config.depositScanIntervalMs;
    // Drop schedules of networks no longer watched or of another interval.
    for (const job of await this.queue.getRepeatableJobs()) {
      if (job.name === DEPOSIT_JOBS.scanNetwork) await this.queue.removeRepeatableByKey(job.key);
    }
    for (const network of networks) {
      await this.queue.add(
        DEPOSIT_JOBS.scanNetwork,
        { network },
        { jobId: `scan:${network}`, repeat: { every }, removeOnComplete: true, removeOnFail: 100 },
      );
    }
    this.logger.log({ networks, everyMs: every }, 'Deposit watching scheduled');
  }
}
