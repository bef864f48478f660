import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';
import { FEES_NOT_FINAL_SQL } from '@app/treasury';

/**
 * `payments_treasury_fees_not_final{network,reason}`: EVM fees the pass cannot make final,
 * `operator` (left for an operator: a status changed by a reorg, a correction not posted) or
 * `overdue` (still undecided long past their finality depth: a transaction dropped for good, a
 * pruned receipt, a forgotten chain). Their books may be wrong until an operator looks. Read
 * from the database at each scrape, so every worker shows the same number. Alert on > 0
 * (docs/operations.md).
 */
@Injectable()
export class FeesNotFinalGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, dataSource: DataSource) {
    new Gauge({
      name: `${METRIC_PREFIX}treasury_fees_not_final`,
      help: 'Network fees left for an operator or overdue past their finality depth, per network',
      labelNames: ['network', 'reason'],
      registers: [registry],
      async collect() {
        this.reset();
        let rows: Array<{ network: string; reason: string; count: number }>;
        try {
          rows = await dataSource.query(FEES_NOT_FINAL_SQL);
        } catch {
          // A scrape must answer while the database does not: this gauge goes missing meanwhile.
          return;
        }
        for (const { network, reason, count } of rows) this.set({ network, reason }, count);
      },
    });
  }
}
