import type { INestApplicationContext } from '@nestjs/common';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, PayoutEventSource, withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

// Several waits for the worker per test: room for a slow shared machine.
jest.setTimeout(90_000);

/*
 * A worker with few slots, so one merchant could take them all: 8 per worker, 4 per endpoint, 4
 * per merchant. The timeout is long (a hanging receiver holds its slot the whole test) and the
 * slow-answer threshold short (a test need not wait for an answer of 14.9 s).
 */
describe('Webhook delivery shares the worker fairly between merchants', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let source: PayoutEventSource;
  let restoreEnvironment: () => void;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '60000',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_MERCHANT_CONCURRENCY: '4',
      WEBHOOK_SLOW_RESPONSE_MS: '1000',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
    source = new PayoutEventSource(api);
  });

  afterAll(async () => {
    for (const receiver of receivers) await receiver.stop();
    await worker?.close();
    await api?.close();
    restoreEnvironment?.();
  });

  const receiver = async () => {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const fundedMerchant = async () => {
    const merchant = await api.createMerchant();
    await source.fund(merchant);
    return merchant;
  };
  const createEndpoint = async (merchant: TestMerchant, url: string) =>
    (await api.post(ENDPOINTS, merchant, { url }).expect(201)).body as { id: string };

  it("one merchant's hanging endpoints hold at most its share; another merchant's events go out", async () => {
    const greedy = await fundedMerchant();
    const hanging = [await receiver(), await receiver()];
    for (const target of hanging) {
      target.replyAlways('hang');
      await createEndpoint(greedy, target.url);
    }
    // 8 deliveries, as many as the worker's slots, and within the endpoints' limits.
    for (let index = 0; index < 4; index++) await source.createPayout(greedy);
    const held = () => hanging.reduce((sum, target) => sum + target.received.length, 0);
    await waitFor(async () => held() >= 4, 20_000, 'the greedy merchant holding its share');

    const other = await fundedMerchant();
    const fine = await receiver();
    await createEndpoint(other, fine.url);
    const payoutId = await source.createPayout(other);
    const eventId = await source.eventId(other, payoutId, 'payout.created');
    // Without the merchant limit all 8 slots hang for the whole timeout (60 s).
    await waitFor(async () => fine.forEvent(eventId).length === 1, 20_000, 'the other delivery');
    expect(held()).toBe(4);
  });

  it('counts answers slower than the threshold toward the breaker, though they deliver', async () => {
    const merchant = await fundedMerchant();
    const slow = await receiver();
    // Past the 1 s threshold, well within the timeout: every event is delivered, slowly.
    slow.replyAlways({ status: 200, body: 'ok', delayMs: 1_500 });
    const endpoint = await createEndpoint(merchant, slow.url);
    const events = 12;
    for (let index = 0; index < events; index++) await source.createPayout(merchant);

    // After 3 slow answers in a row the breaker opens and the queue not yet sent waits for it.
    await waitFor(
      async () =>
        (await api.count(
          'webhook_deliveries',
          `endpoint_id = $1 AND status = 'Pending' AND attempt_count = 0 AND lease_token IS NULL
             AND next_attempt_at > now() + interval '1 second'`,
          [endpoint.id],
        )) > 0,
      20_000,
      'the queue postponed by the breaker',
    );
    // The slow answers themselves were successes.
    const attempts: Array<{ succeeded: boolean; latency_ms: number }> = await api.dataSource.query(
      `SELECT a.succeeded, a.latency_ms FROM webhook_attempts a
           JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
      [endpoint.id],
    );
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.length).toBeLessThan(events);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ succeeded: true, latency_ms: expect.any(Number) });
      expect(attempt.latency_ms).toBeGreaterThanOrEqual(1_000);
    }
  });
});
