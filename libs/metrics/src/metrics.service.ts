import { Inject, Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { APP_CONFIG, AppConfig } from '@app/common';
import { METRICS_REGISTRY } from './metrics-registry';
import { metricsAccessAllowed } from './metrics-token';
import { OperationsGauges } from './operations-gauges';

/** The Prometheus exposition of one process: its own counters plus the deployment's gauges. */
@Injectable()
export class MetricsService {
  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly gauges: OperationsGauges,
  ) {}

  get contentType(): string {
    return this.registry.contentType;
  }

  allows(authorization: string | undefined): boolean {
    return metricsAccessAllowed(this.config.operations.metricsToken, authorization);
  }

  async render(): Promise<string> {
    await this.gauges.refresh();
    return this.registry.metrics();
  }
}
