import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ChainsModule } from '@app/chains';
import { HttpMetricsMiddleware, MetricsModule } from '@app/metrics';
import { DrainState } from './drain-state';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { ReadinessCheck } from './readiness';
import { RpcProbes } from './rpc-probes';

/** Health, readiness, /metrics and the request metrics of every route of the API. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), MetricsModule, ChainsModule],
  controllers: [HealthController, MetricsController],
  providers: [DrainState, RpcProbes, ReadinessCheck],
  exports: [DrainState],
})
export class HealthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
