import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { QUEUES } from '@app/common';
import { MetricsModule } from '@app/metrics';
import { TreasuryModule } from '@app/treasury';
import { ReconcileProcessor } from './reconcile.processor';
import { ReconcileScheduler } from './reconcile.scheduler';
import { ReconciliationGauge } from './reconciliation.gauge';

/** The worker's reconciliation: its queue, schedules, processor and /metrics gauge. */
@Module({
  imports: [
    BullModule.registerQueue({ name: QUEUES.reconciliation }),
    TreasuryModule,
    MetricsModule,
  ],
  providers: [ReconcileScheduler, ReconcileProcessor, ReconciliationGauge],
})
export class ReconciliationJobsModule {}
