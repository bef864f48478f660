import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { NetworkName } from '@app/chains';
import { QUEUES, TREASURY_JOBS } from '@app/common';
import { TreasurySweeps } from '@app/treasury';

export interface SweepNetworkJob {
  network: NetworkName;
}

/** Thin: a pass is safe to lose or repeat (journaled, single-flight per network by a lock). */
@Processor(QUEUES.treasury)
export class SweepsProcessor {
  private readonly logger = new Logger(SweepsProcessor.name);

  constructor(private readonly sweeps: TreasurySweeps) {}

  @Process({ name: TREASURY_JOBS.sweep, concurrency: 2 })
  async sweep(job: Job<SweepNetworkJob>): Promise<void> {
    const report = await this.sweeps.run(job.data.network);
    if (
      report &&
      (report.sweeps.length ||
        report.tracked.completed ||
        report.deferred ||
        report.deferredTrxRead)
    ) {
      this.logger.log(report, 'Sweep pass');
    }
  }
}
