import { getQueueToken } from '@nestjs/bull';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bull';
import request from 'supertest';
import { QUEUES } from '@app/common';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { creditBalance } from '../support/ledger-credit';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { postPayout, randomEvmAddress } from '../support/payouts-api';
import { PrivatePostgres, PrivateRedis } from '../support/private-services';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const OUTAGE_MS = 30_000;
const SESSIONS = '/v1/checkout/sessions';
const SESSION = {
  pricing_amount: '25',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'ETHEREUM',
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
};

/*
 * Redis gone for 30 s under a running API and worker (a private redis-server without
 * persistence, so its jobs are lost with it, as with a crashed cache). Sessions never need
 * Redis; payouts are queued in it, but PostgreSQL holds what must happen, so a payout queued
 * before the outage and one created during it are both sent, once, after it.
 */
describe('Fault: Redis down for 30 s', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let devnet: Devnet;
  let environment: ReturnType<typeof useChainEnvironment>;
  let api: TestApi;
  let worker: INestApplicationContext;
  let merchant: TestMerchant;

  beforeAll(async () => {
    [postgres, redis, devnet] = await Promise.all([
      PrivatePostgres.start(),
      PrivateRedis.start(),
      startDevnet(),
    ]);
    environment = useChainEnvironment(devnet.networksFileJson({ confirmations: 1 }), {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAY_ADDRESS_POOL_TARGET: '50',
    });
    api = await TestApi.start();
    worker = await startWorker();
    merchant = await api.createMerchant({ name: 'Redis Outage Shop' });
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '1000',
    });
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    environment?.restore();
    await Promise.all([devnet?.stop(), redis?.remove(), postgres?.remove()]);
  });

  const createPayout = async () =>
    (
      await postPayout(api, merchant, {
        amount: '10',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      }).expect(201)
    ).body as { id: string; to_address: string };

  const statusOf = async (id: string): Promise<string> =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body.status;

  it('keeps serving sessions, and sends every payout once when Redis is back', async () => {
    const sanity = await createPayout();
    await waitFor(async () => (await statusOf(sanity.id)) === 'Completed', 30_000, 'a payout');

    // Queued before the outage and not taken yet (this worker holds off), then lost with Redis.
    const workerPayouts = worker.get<Queue>(getQueueToken(QUEUES.payouts), { strict: false });
    await workerPayouts.pause(true);
    const queuedBefore = await createPayout();
    await redis.pause();
    const outageEnds = Date.now() + OUTAGE_MS;
    void workerPayouts.resume(true);

    // The enqueue fails after a second; the payout is committed and answered all the same.
    const createdDuring = await createPayout();
    const ready = await request(api.http).get('/health/ready').expect(503);
    expect(ready.body).toMatchObject({
      status: 'error',
      error: { redis: { status: 'down' } },
      info: { database: { status: 'up' } },
    });
    const metrics = await request(api.http).get('/metrics').expect(200);
    expect(metrics.text).toContain('payments_metrics_source_up{source="redis"} 0');

    let sessions = 0;
    while (Date.now() < outageEnds) {
      const created = await api.post(SESSIONS, merchant, SESSION).expect(201);
      await api.get(`${SESSIONS}/${created.body.id}`, merchant).expect(200);
      sessions += 1;
      // Paces the outage's traffic (the outage itself is the fixed 30 s under test).
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(sessions).toBeGreaterThan(10);
    expect(await statusOf(queuedBefore.id)).toBe('Pending');
    expect(await statusOf(createdDuring.id)).toBe('Pending');

    await redis.resume();

    await waitFor(
      async () =>
        (await statusOf(queuedBefore.id)) === 'Completed' &&
        (await statusOf(createdDuring.id)) === 'Completed',
      60_000,
      'both payouts completed after the outage',
    );
    await request(api.http).get('/health/ready').expect(200);
    const transfers = await transfersFrom(devnet, 'USDT', DEVNET_ACCOUNTS.hotWallet.address);
    for (const payout of [sanity, queuedBefore, createdDuring]) {
      expect(transfers.filter((transfer) => transfer.to === payout.to_address)).toHaveLength(1);
    }
  });
});
