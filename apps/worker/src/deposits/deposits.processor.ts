import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { ChainError, NetworkName } from '@app/chains';
import { DepositWatcherService } from '@app/checkout';
import { DEPOSIT_JOBS, QUEUES } from '@app/common';

export interface ScanNetworkJob {
  network: NetworkName;
}

@Processor(QUEUES.deposits)
export class DepositsProcessor {
  private readonly logger = new Logger(DepositsProcessor.name);

  constructor(private readonly watcher: DepositWatcherService) {}

  /** One scan tick; an unreachable RPC is logged and retried by the next tick, never skipped. */
  @Process(DEPOSIT_JOBS.scanNetwork)
  async scanNetwork(job: Job<ScanNetworkJob>): Promise<void> {
    try {
      await this.watcher.scan(job.data.network);
    } catch (error) {
      if (error instanceof ChainError && error.transient) {
        this.logger.warn(
          { network: job.data.network, reason: error.message },
          'RPC unavailable; retrying next tick',
        );
        return;
      }
      throw error;
    }
  }
}
