import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { CheckoutModule } from '@app/checkout';
import { AppConfigModule, AppLoggerModule, QUEUES, queueRootModule } from '@app/common';
import { RequestLogRetentionModule } from '@app/console/request-log';
import { DatabaseModule } from '@app/database';
import { WebhookDeliveryModule } from '@app/events';
import { IdempotencyModule } from '@app/idempotency';
import { JobMetrics, MetricsModule } from '@app/metrics';
import { PayoutProcessingModule } from '@app/payouts';
import { RefundPayoutsModule } from '@app/refunds';
import { TreasuryModule } from '@app/treasury';
import { DepositWatchLoops } from './deposits/deposit-watch-loops';
import { TokenDecimalsCheck } from './deposits/token-decimals.check';
import { MaintenanceProcessor } from './maintenance/maintenance.processor';
import { MaintenanceScheduler } from './maintenance/maintenance.scheduler';
import { RequestLogRetentionProcessor } from './maintenance/request-log-retention.processor';
import { DataRetention } from './maintenance/retention/data-retention';
import { DataRetentionProcessor } from './maintenance/retention/data-retention.processor';
import { RetentionMetrics } from './maintenance/retention/retention-metrics';
import { NonceProofWaitGauge } from './payouts/nonce-proof-wait.gauge';
import { PayoutsProcessor } from './payouts/payouts.processor';
import { PayoutsScheduler } from './payouts/payouts.scheduler';
import { ReceiptsWithoutFeeGauge } from './payouts/receipts-without-fee.gauge';
import { FeesNotFinalGauge } from './treasury/fees-not-final.gauge';
import { ReconciliationJobsModule } from './treasury/reconciliation-jobs.module';
import { SweepsProcessor } from './treasury/sweeps.processor';
import { SweepsScheduler } from './treasury/sweeps.scheduler';
import { WebhookDeliveryLoop } from './webhooks/webhook-delivery-loop';
import { WorkerDrain } from './worker-drain';

/** The worker: the same domain modules as the API, plus the queue processors. No HTTP listener. */
@Module({
  imports: [
    AppConfigModule,
    AppLoggerModule,
    DatabaseModule,
    queueRootModule(),
    BullModule.registerQueue({ name: QUEUES.maintenance }, { name: QUEUES.treasury }),
    ChainsModule,
    CheckoutModule,
    IdempotencyModule,
    PayoutProcessingModule,
    // Refunds follow the payouts that send them (docs/treasury.md, Refunds).
    RefundPayoutsModule,
    TreasuryModule,
    ReconciliationJobsModule,
    WebhookDeliveryModule,
    MetricsModule,
    RequestLogRetentionModule,
  ],
  providers: [
    MaintenanceProcessor,
    MaintenanceScheduler,
    RequestLogRetentionProcessor,
    DataRetention,
    DataRetentionProcessor,
    RetentionMetrics,
    DepositWatchLoops,
    TokenDecimalsCheck,
    PayoutsProcessor,
    PayoutsScheduler,
    NonceProofWaitGauge,
    ReceiptsWithoutFeeGauge,
    FeesNotFinalGauge,
    SweepsProcessor,
    SweepsScheduler,
    WebhookDeliveryLoop,
    JobMetrics,
    WorkerDrain,
  ],
})
export class WorkerModule {}
