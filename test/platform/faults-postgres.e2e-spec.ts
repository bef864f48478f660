import type { INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { startWorker } from '../support/in-process-worker';
import { PrivatePostgres, PrivateRedis } from '../support/private-services';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, PayoutEventSource, withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';

const SESSIONS = '/v1/checkout/sessions';
const SESSION = {
  pricing_amount: '25',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
};

/*
 * PostgreSQL restarted under a running API and worker (a private server: the shared one is never
 * touched). While it is down the API answers 503 service_unavailable with Retry-After, never a
 * 500; when it is back both recover on their own, without a restart.
 */
describe('Fault: PostgreSQL restarted', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let receiver: WebhookReceiver;
  let restoreEnvironment: () => void;
  let api: TestApi;
  let worker: INestApplicationContext;
  let merchant: TestMerchant;
  let payouts: PayoutEventSource;

  beforeAll(async () => {
    [postgres, redis, receiver] = await Promise.all([
      PrivatePostgres.start(),
      PrivateRedis.start(),
      WebhookReceiver.start(),
    ]);
    restoreEnvironment = withEnvironment({
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      PAY_ADDRESS_POOL_TARGET: '50',
    });
    api = await TestApi.start();
    worker = await startWorker();
    merchant = await api.createMerchant({ name: 'Outage Shop' });
    payouts = new PayoutEventSource(api);
    await payouts.fund(merchant);
    await api.post(ENDPOINTS, merchant, { url: `${receiver.url}/hooks` }).expect(201);
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    restoreEnvironment?.();
    await Promise.all([receiver?.stop(), redis?.remove(), postgres?.remove()]);
  });

  /** A payout.created webhook reaching the receiver proves the worker's loop is alive. */
  const deliveredFor = async (payoutId: string) =>
    receiver.events().some((event) => event.data.object.id === payoutId);

  it('answers 503 during the outage and recovers by itself when the database is back', async () => {
    const session = (await api.post(SESSIONS, merchant, SESSION).expect(201)).body;
    const before = await payouts.createPayout(merchant);
    await waitFor(() => deliveredFor(before), 20_000, 'a webhook before the outage');

    await postgres.pause();

    for (const attempt of [
      () => api.get(`${SESSIONS}/${session.id}`, merchant),
      () => api.post(SESSIONS, merchant, SESSION),
      () => api.get(`${SESSIONS}/${session.id}`, merchant),
    ]) {
      const response = await attempt();
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({
        error: {
          type: 'api_error',
          code: 'service_unavailable',
          message: 'The service is temporarily unavailable. Retry later.',
          request_id: expect.any(String),
        },
      });
    }
    const ready = await request(api.http).get('/health/ready').expect(503);
    expect(ready.body).toMatchObject({
      status: 'error',
      error: { database: { status: 'down' } },
      info: { redis: { status: 'up' } },
    });
    await request(api.http).get('/health/live').expect(200);

    await postgres.resume();

    // The pool replaces its dead connections: no restart of either process.
    await waitFor(
      async () => (await api.get(`${SESSIONS}/${session.id}`, merchant)).status === 200,
      30_000,
      'the API to read again',
    );
    await api.post(SESSIONS, merchant, SESSION).expect(201);
    await request(api.http).get('/health/ready').expect(200);
    const after = await payouts.createPayout(merchant);
    await waitFor(() => deliveredFor(after), 30_000, 'the worker to deliver again');
  });
});
