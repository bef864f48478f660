import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';
import { ReconciliationRepository } from '@app/treasury';

/**
 * `payments_treasury_reconciliation_difference{network,currency}`: onchain - books of the latest
 * run when the run before it differed too (the alert), else 0. Read from the stored runs at each
 * scrape, so every worker shows the same numbers whichever ran the reconciliation.
 */
@Injectable()
export class ReconciliationGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, repository: ReconciliationRepository) {
    new Gauge({
      name: `${METRIC_PREFIX}treasury_reconciliation_difference`,
      help:
        'Units on our addresses minus the books (whole units of the currency), per network and ' +
        'currency, when two reconciliation runs in a row differed; 0 otherwise',
      labelNames: ['network', 'currency'],
      registers: [registry],
      async collect() {
        this.reset();
        let rows: Awaited<ReturnType<ReconciliationRepository['latestDifferences']>>;
        try {
          rows = await repository.latestDifferences();
        } catch {
          // A scrape must answer while the database does not: this gauge goes missing meanwhile.
          return;
        }
        for (const row of rows) {
          // A gauge is a float: the exact difference is in the log line and the CLI's output.
          this.set(
            { network: row.network, currency: row.currency },
            row.persistent ? Number(row.difference) : 0,
          );
        }
      },
    });
  }
}
