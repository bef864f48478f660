import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { receiptsWithoutFee } from '@app/chains';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';

/**
 * `payments_chain_receipts_without_fee{network}`: receipts of the service's transactions (payouts,
 * sweeps, fees, funding) this worker read lately that no RPC URL answered with their fee: on an
 * OP-stack network one without `l1Fee` or with an operator fee (opStackFeeGap). Nothing is
 * decided or booked on them: their payouts stay Processing, sweeps and fees wait. Per worker
 * process (what it read), not from the database. Alert on > 0 (docs/operations.md, "Receipts
 * without a fee").
 */
@Injectable()
export class ReceiptsWithoutFeeGauge {
  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    new Gauge({
      name: `${METRIC_PREFIX}chain_receipts_without_fee`,
      help:
        "Receipts of the service's transactions no RPC URL answered with their fee (OP-stack " +
        'l1Fee), per network',
      labelNames: ['network'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [network, count] of receiptsWithoutFee.counts()) this.set({ network }, count);
      },
    });
  }
}
