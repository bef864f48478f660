import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { QUEUES } from '@app/common';
import { MetricsModule } from '@app/metrics';
import { TreasuryModule } from '@app/treasury';
import { ReconcileProcessor } from './reconcile.processor';
import { ReconcileScheduler } from './reconcile.scheduler';
import { ReconciliationGauge } from './reconciliation.gauge';
import { SweepTrxReadGauge } from './sweep-trx-read.gauge';

/**
 * The worker's reconciliation: its queue, schedules, processor and /metrics gauge; and the gauge
 * of TRON sweeps waiting for a TRX read (the treasury's gauges, side by side).
 */
@Module({
  imports: [
    BullModule.registerQueue({ name: QUEUES.reconciliation }),
    TreasuryModule,
    MetricsModule,
  ],
  providers: [ReconcileScheduler, ReconcileProcessor, ReconciliationGauge, SweepTrxReadGauge],
})
export class ReconciliationJobsModule {}
