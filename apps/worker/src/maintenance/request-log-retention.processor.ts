import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { QUEUES } from '@app/common';
import { PURGE_REQUEST_LOG_JOB, RequestLogRetention } from '@app/console/request-log';
import { RetentionMetrics } from './retention/retention-metrics';

/** The console's request log keeps 30 days; scheduled hourly by MaintenanceScheduler. */
@Processor(QUEUES.maintenance)
export class RequestLogRetentionProcessor {
  private readonly logger = new Logger(RequestLogRetentionProcessor.name);

  constructor(
    private readonly retention: RequestLogRetention,
    private readonly metrics: RetentionMetrics,
  ) {}

  @Process(PURGE_REQUEST_LOG_JOB)
  async purgeRequestLog(): Promise<void> {
    const deleted = await this.retention.purgeExpired();
    this.metrics.deleted('api_request_log', deleted);
    if (deleted) this.logger.log({ deleted }, 'Expired request log entries purged');
  }
}
