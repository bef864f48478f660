import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { CheckoutModule } from '@app/checkout';
import { createMetricsRegistry, METRICS_REGISTRY } from './metrics-registry';
import { MetricsService } from './metrics.service';
import { OperationsGauges } from './operations-gauges';
import { OperationsSnapshotRepository } from './operations-snapshot.repository';
import { RedisProbe } from './redis-probe';

/**
 * Metrics of one process (API or worker): a registry of its own, the deployment's gauges and the
 * Redis probe the API's readiness check shares. The API adds HttpMetricsMiddleware, the worker
 * JobMetrics.
 */
@Module({
  imports: [ChainsModule, CheckoutModule],
  providers: [
    { provide: METRICS_REGISTRY, useFactory: createMetricsRegistry },
    RedisProbe,
    OperationsSnapshotRepository,
    OperationsGauges,
    MetricsService,
  ],
  exports: [METRICS_REGISTRY, RedisProbe, MetricsService],
})
export class MetricsModule {}
