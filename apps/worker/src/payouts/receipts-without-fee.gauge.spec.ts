import { Registry } from 'prom-client';
import { receiptsWithoutFee } from '@app/chains';
import { ReceiptsWithoutFeeGauge } from './receipts-without-fee.gauge';

const TX = `0x${'02'.repeat(32)}`;

describe('payments_chain_receipts_without_fee (review r9b follow-up, H1)', () => {
  it('counts per network the receipts no RPC URL answered with their fee, until one does', async () => {
    const registry = new Registry();
    new ReceiptsWithoutFeeGauge(registry);
    receiptsWithoutFee.noted('BASE', TX, 'no l1Fee');
    expect(await registry.metrics()).toContain(
      'payments_chain_receipts_without_fee{network="BASE"} 1',
    );
    receiptsWithoutFee.answered('BASE', TX);
    expect(await registry.metrics()).not.toContain('network="BASE"');
  });
});
