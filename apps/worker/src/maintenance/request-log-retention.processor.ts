import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig, QUEUES, RetentionConfig } from '@app/common';
import { PURGE_REQUEST_LOG_JOB, RequestLogRetention } from '@app/console/request-log';
import { RETENTION_RUN_BUDGET_MS } from './retention/data-retention';
import { RetentionMetrics } from './retention/retention-metrics';

/**
 * The console's request log keeps RETENTION_REQUEST_LOG_DAYS (30 by default); scheduled hourly by
 * MaintenanceScheduler, each run bounded like the other retention runs.
 */
@Processor(QUEUES.maintenance)
export class RequestLogRetentionProcessor {
  private readonly logger = new Logger(RequestLogRetentionProcessor.name);
  private readonly settings: RetentionConfig;

  constructor(
    private readonly retention: RequestLogRetention,
    private readonly metrics: RetentionMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = config.retention;
  }

  // Bull passes the job as the handler's argument: the budget is the purge's own.
  @Process(PURGE_REQUEST_LOG_JOB)
  async purgeRequestLog(): Promise<void> {
    await this.purge();
  }

  /** One run within `budgetMs`; returns how many rows went. */
  async purge(budgetMs = RETENTION_RUN_BUDGET_MS): Promise<number> {
    const { requestLogDays, batchSize } = this.settings;
    const deleted = await this.retention.purgeExpired(
      batchSize,
      requestLogDays,
      Date.now() + budgetMs,
    );
    this.metrics.deleted('api_request_log', deleted);
    if (deleted) this.logger.log({ deleted }, 'Expired request log entries purged');
    return deleted;
  }
}
