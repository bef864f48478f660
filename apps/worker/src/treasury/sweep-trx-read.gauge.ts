import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';
import { SweepPlannerRepository } from '@app/treasury';

/**
 * `payments_treasury_sweeps_waiting_for_trx_read{network,currency}`: TRON deposit addresses
 * holding tokens whose sweep waits for a read of their TRX (a node without balance history once a
 * sweep burnt their TRX, or the solidity API failing; docs/treasury.md). Read from the database
 * at each scrape, so every worker shows the same number whichever ran the pass. Alert on > 0 for
 * long: these tokens stay on the deposit addresses until the node answers.
 */
@Injectable()
export class SweepTrxReadGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, planner: SweepPlannerRepository) {
    new Gauge({
      name: `${METRIC_PREFIX}treasury_sweeps_waiting_for_trx_read`,
      help:
        'TRON deposit addresses holding tokens whose sweep waits for a read of their TRX, per ' +
        'network and currency',
      labelNames: ['network', 'currency'],
      registers: [registry],
      async collect() {
        this.reset();
        let rows: Array<{ network: string; currency: string }>;
        try {
          rows = await planner.waitingForTrxRead();
        } catch {
          // A scrape must answer while the database does not: this gauge goes missing meanwhile.
          return;
        }
        for (const { network, currency } of rows) this.inc({ network, currency });
      },
    });
  }
}
