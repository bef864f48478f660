import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger } from '@nestjs/common';
import { PayAddressPool, SessionExpiryService } from '@app/checkout';
import { APP_CONFIG, AppConfig, MAINTENANCE_JOBS, QUEUES } from '@app/common';
import { IdempotencyService } from '@app/idempotency';
import { RefundExpiry } from '@app/refunds';
import { RETENTION_RUN_BUDGET_MS } from './retention/data-retention';
import { RetentionMetrics } from './retention/retention-metrics';

/** Housekeeping that keeps the API's hot path cheap. Each job is safe to run on many workers. */
@Processor(QUEUES.maintenance)
export class MaintenanceProcessor {
  private readonly logger = new Logger(MaintenanceProcessor.name);

  constructor(
    private readonly pool: PayAddressPool,
    private readonly idempotency: IdempotencyService,
    private readonly expiry: SessionExpiryService,
    private readonly refundExpiry: RefundExpiry,
    private readonly retentionMetrics: RetentionMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process(MAINTENANCE_JOBS.expireSessions)
  async expireSessions(): Promise<void> {
    const settled = await this.expiry.expireDue();
    if (settled) this.logger.log({ settled }, 'Expired sessions settled');
  }

  @Process(MAINTENANCE_JOBS.expireRefundDestinations)
  async expireRefundDestinations(): Promise<void> {
    // Logged by RefundExpiry, with the refunds it canceled.
    await this.refundExpiry.expireDue();
  }

  @Process(MAINTENANCE_JOBS.refillPayAddresses)
  async refillPayAddresses(): Promise<void> {
    await this.pool.refillAll();
  }

  /**
   * Keys past their 24 hours (the API's contract, not a setting: docs/operations.md, "Data
   * retention"), in batches of RETENTION_BATCH_SIZE, bounded like the other retention runs.
   */
  @Process(MAINTENANCE_JOBS.purgeIdempotencyKeys)
  async purgeIdempotencyKeys(): Promise<void> {
    // Bull passes the job as the handler's argument: the budget is the purge's own.
    await this.purgeExpiredKeys();
  }

  /** One run within `budgetMs`; returns how many keys went. */
  async purgeExpiredKeys(budgetMs = RETENTION_RUN_BUDGET_MS): Promise<number> {
    const deleted = await this.idempotency.purgeExpired(
      this.config.retention.batchSize,
      Date.now() + budgetMs,
    );
    this.retentionMetrics.deleted('idempotency_keys', deleted);
    if (deleted) this.logger.log({ deleted }, 'Expired idempotency keys purged');
    return deleted;
  }
}
