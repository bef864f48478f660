import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { PayAddressPool, SessionExpiryService } from '@app/checkout';
import { MAINTENANCE_JOBS, QUEUES } from '@app/common';
import { IdempotencyService } from '@app/idempotency';
import { RefundExpiry } from '@app/refunds';
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

  @Process(MAINTENANCE_JOBS.purgeIdempotencyKeys)
  async purgeIdempotencyKeys(): Promise<void> {
    const deleted = await this.idempotency.purgeExpired();
    this.retentionMetrics.deleted('idempotency_keys', deleted);
    if (deleted) this.logger.log({ deleted }, 'Expired idempotency keys purged');
  }
}
