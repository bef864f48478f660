import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';
import { WAITING_FOR_NONCE_PROOF_SQL } from '@app/payouts/processing/nonce-proof-waits';

/**
 * `payments_payouts_waiting_for_nonce_proof{network}`: Processing payouts waiting 10 minutes or
 * more on a proof: their nonce used on chain while no block read proves which transaction used it
 * (a node without that block's state, no stored proof), or a block a node names (the nonce's
 * consumer, a receipt) that the blocks read do not prove the chain's (review r9a, N3). Waits a
 * tick found the nonce unused for are not counted (review r9c, R2). Their funds stay held; they
 * are never signed again on an absence of proof. Read from the database at each scrape, so every
 * worker shows the same number. Alert on > 0 (docs/operations.md).
 */
@Injectable()
export class NonceProofWaitGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry, dataSource: DataSource) {
    new Gauge({
      name: `${METRIC_PREFIX}payouts_waiting_for_nonce_proof`,
      help:
        'Processing payouts waiting 10 minutes or more on a used nonce whose consumer cannot be ' +
        'proven, per network',
      labelNames: ['network'],
      registers: [registry],
      async collect() {
        this.reset();
        let rows: Array<{ network: string; count: number }>;
        try {
          rows = await dataSource.query(WAITING_FOR_NONCE_PROOF_SQL);
        } catch {
          // A scrape must answer while the database does not: this gauge goes missing meanwhile.
          return;
        }
        for (const { network, count } of rows) this.set({ network }, count);
      },
    });
  }
}
