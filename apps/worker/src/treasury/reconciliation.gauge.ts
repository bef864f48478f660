import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';
import { LatestDifference, ReconciliationRepository } from '@app/treasury';

/**
 * `payments_treasury_reconciliation_difference{network,currency,location}`: onchain - books at
 * each location (deposits, hot_wallet, treasury, sweeper) of the latest run, when the run before
 * it had the same differences (the alert), else 0. The locations add up to the currency's total
 * (`sum by (network, currency)`), and a unit booked to the wrong location shows as two opposite
 * values even when the total is 0. Read from the stored runs at each scrape, so every worker
 * shows the same numbers whichever ran the reconciliation.
 */
@Injectable()
export class ReconciliationGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, repository: ReconciliationRepository) {
    new Gauge({
      name: `${METRIC_PREFIX}treasury_reconciliation_difference`,
      help:
        'Units on our addresses minus the books (whole units of the currency), per network, ' +
        'currency and location, when two reconciliation runs in a row differed; 0 otherwise',
      labelNames: ['network', 'currency', 'location'],
      registers: [registry],
      async collect() {
        this.reset();
        let rows: LatestDifference[];
        try {
          rows = await repository.latestDifferences();
        } catch {
          // A scrape must answer while the database does not: this gauge goes missing meanwhile.
          return;
        }
        for (const row of rows) {
          for (const { location, difference } of row.locations) {
            // A gauge is a float: the exact difference is in the log line and the CLI's output.
            this.set(
              { network: row.network, currency: row.currency, location },
              row.persistent ? Number(difference) : 0,
            );
          }
        }
      },
    });
  }
}
