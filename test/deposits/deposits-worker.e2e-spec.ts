import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Deposits detected by running workers (one watch loop per network in each of two workers)', () => {
  const workers: INestApplicationContext[] = [];
  // This suite's chain is new: the one the previous suite watched as ETHEREUM is forgotten.
  const chain = useChainSuite({
    environment: { WATCH_NETWORKS: 'ETHEREUM', DEPOSIT_SCAN_INTERVAL_MS: '200' },
    cleanUp: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    ({ devnet, api, merchant } = chain);
    // Two workers on the same database and Redis, as in a scaled-out deployment.
    for (let i = 0; i < 2; i++) {
      workers.push(await NestFactory.createApplicationContext(WorkerModule, { logger: false }));
    }
    await Promise.all(workers.map((worker) => worker.init()));
  });

  it('marks sessions Paid without anyone calling the watcher, each payment counted once', async () => {
    const sessions = await Promise.all(
      Array.from(
        { length: 5 },
        async (_, i) =>
          (
            await api
              .post(SESSIONS, merchant, {
                pricing_amount: String(i + 1),
                pricing_currency: 'USD',
                currency: 'USDC',
                network: 'ETHEREUM',
              })
              .expect(201)
          ).body,
      ),
    );
    for (const [i, session] of sessions.entries()) {
      await devnet.transfer('USDC', session.pay_address, String(i + 1));
    }
    await waitFor(async () => {
      const count = await api.count('checkout_sessions', `merchant_id = $1 AND status = 'Paid'`, [
        merchant.id,
      ]);
      return count === sessions.length;
    }, 20_000);
    for (const [i, session] of sessions.entries()) {
      const { body } = await api.get(`${SESSIONS}/${session.id}`, merchant).expect(200);
      expect(body).toMatchObject({ status: 'Paid', amount_received: String(i + 1) });
      expect(body.transactions).toHaveLength(1);
    }
    const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
    expect(balances).toEqual([
      {
        currency: 'USDC',
        network: 'ETHEREUM',
        sub_merchant_code: null,
        available: '14.85',
        held: '0',
      },
    ]);
  });
});
