import { Process, Processor } from '@nestjs/bull';
import { QUEUES } from '@app/common';
import { APPLY_RETENTION_JOB, DataRetention } from './data-retention';

/** Retention of events and webhook attempts; scheduled every 10 minutes by MaintenanceScheduler. */
@Processor(QUEUES.maintenance)
export class DataRetentionProcessor {
  constructor(private readonly retention: DataRetention) {}

  @Process(APPLY_RETENTION_JOB)
  async applyRetention(): Promise<void> {
    // Logged (and counted) by DataRetention, with what it deleted.
    await this.retention.apply();
  }
}
