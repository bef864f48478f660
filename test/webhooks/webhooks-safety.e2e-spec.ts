import type { INestApplicationContext } from '@nestjs/common';
import { ChildProcess, spawn } from 'node:child_process';
import dns from 'node:dns';
import { join } from 'node:path';
import { buildApp, mainOf } from '../support/built-apps';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, PayoutEventSource, withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

const ROOT = join(__dirname, '..', '..');
const WORKER_MAIN = mainOf('worker');

// Several waits for the worker per test: room for a slow shared machine.
jest.setTimeout(90_000);

interface Delivery {
  webhook_endpoint_id: string;
  status: string;
  attempts: Array<{ status_code: number | null; error: string | null }>;
}

const deliveriesOf = async (api: TestApi, merchant: TestMerchant, eventId: string) =>
  (await api.get(`/v1/events/${eventId}/deliveries`, merchant).expect(200)).body as Delivery[];

describe('Webhook URLs in production: only public addresses (SSRF)', () => {
  let api: TestApi;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' });
    api = await TestApi.start();
  });

  afterAll(async () => {
    await api?.close();
    restoreEnvironment?.();
  });

  it.each([
    ['plain http', 'http://203.0.113.10/hooks'],
    ['loopback', 'https://127.0.0.1/hooks'],
    ['loopback in decimal', 'https://2130706433/hooks'],
    ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks'],
    ['a private network', 'https://10.1.2.3/hooks'],
    ['another private network', 'https://192.168.0.5/hooks'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
    ['a hostname resolving to loopback', 'https://localhost/hooks'],
    ['credentials in the url', 'https://user:pass@203.0.113.10/hooks'],
  ])('refuses %s with a 400 naming url', async (_, url) => {
    const merchant = await api.createMerchant();
    const { body } = await api.post(ENDPOINTS, merchant, { url }).expect(400);
    expect(body.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    expect(await api.count('webhook_endpoints', 'merchant_id = $1', [merchant.id])).toBe(0);
  });

  it('never says what a name resolved to (a DNS oracle of our network)', async () => {
    const merchant = await api.createMerchant();
    const { body } = await api
      .post(ENDPOINTS, merchant, { url: 'https://localhost/hooks' })
      .expect(400);
    expect(body.error.message).toBe(
      'url host localhost resolves to a private or reserved address; webhooks are delivered only to public addresses.',
    );
    expect(body.error.message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });

  it('refuses a merchant at its endpoint limit before any DNS lookup', async () => {
    const merchant = await api.createMerchant();
    // IP literals: no lookup for these either.
    for (let index = 0; index < 16; index++) {
      await api.post(ENDPOINTS, merchant, { url: `https://8.8.8.8/hooks/${index}` }).expect(201);
    }
    const lookup = jest.spyOn(dns.promises, 'lookup');
    try {
      const { body } = await api
        .post(ENDPOINTS, merchant, { url: 'https://hooks.example.invalid/x' })
        .expect(422);
      expect(body.error.code).toBe('limit_exceeded');
      expect(lookup).not.toHaveBeenCalled();
      // The spy does see the lookups of a merchant below its limit.
      const other = await api.createMerchant();
      await api.post(ENDPOINTS, other, { url: 'https://hooks.example.invalid/x' }).expect(400);
      expect(lookup).toHaveBeenCalled();
    } finally {
      lookup.mockRestore();
    }
  });

  it('checks a changed url too', async () => {
    const merchant = await api.createMerchant();
    // 8.8.8.8 is public: accepted (nothing is sent to it in this test).
    const { body: endpoint } = await api
      .post(ENDPOINTS, merchant, { url: 'https://8.8.8.8/hooks' })
      .expect(201);
    const { body } = await api
      .patch(`${ENDPOINTS}/${endpoint.id}`, merchant, { url: 'https://[::ffff:7f00:1]/x' })
      .expect(400);
    expect(body.error.param).toBe('url');
  });
});

describe('Webhook URLs with private addresses allowed (local development)', () => {
  let api: TestApi;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
    api = await TestApi.start();
  });

  afterAll(async () => {
    await api?.close();
    restoreEnvironment?.();
  });

  it('accepts loopback but never the link-local and metadata addresses', async () => {
    const merchant = await api.createMerchant();
    await api.post(ENDPOINTS, merchant, { url: 'http://127.0.0.1:9/hooks' }).expect(201);
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://[::ffff:169.254.169.254]/',
    ]) {
      const { body } = await api.post(ENDPOINTS, merchant, { url }).expect(400);
      expect(body.error.param).toBe('url');
    }
  });
});

describe('Webhook delivery checks the address again when it connects', () => {
  it('a worker in production mode refuses an endpoint that points at loopback', async () => {
    const restorePrivate = withEnvironment({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
    const api = await TestApi.start();
    restorePrivate();
    const receiver = await WebhookReceiver.start();
    const restoreStrict = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'false',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    let worker: INestApplicationContext | undefined;
    try {
      const merchant = await api.createMerchant();
      const source = new PayoutEventSource(api);
      await source.fund(merchant);
      // Accepted while private addresses were allowed (as a DNS name could later resolve here).
      const { body: endpoint } = await api
        .post(ENDPOINTS, merchant, { url: receiver.url })
        .expect(201);
      worker = await startWebhookWorker();
      const payoutId = await source.createPayout(merchant);
      const eventId = await source.eventId(merchant, payoutId, 'payout.created');
      let attempts: Delivery['attempts'] = [];
      await waitFor(async () => {
        const delivery = (await deliveriesOf(api, merchant, eventId)).find(
          (item) => item.webhook_endpoint_id === endpoint.id,
        );
        attempts = delivery?.attempts ?? [];
        return attempts.length > 0;
      }, 20_000);
      expect(attempts[0]).toMatchObject({
        status_code: null,
        error: expect.stringMatching(/not allowed.*127\.0\.0\.1/),
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await worker?.close();
      restoreStrict();
      await receiver.stop();
      await api.close();
    }
  });
});

/*
 * The worker as a real process, SIGKILLed while its request hangs at the receiver: the delivery's
 * lease runs out and the restarted worker sends the event again.
 */
describe('Webhook delivery survives a worker killed mid-delivery', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let worker: ChildProcess | undefined;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    await buildApp('worker');
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    receiver = await WebhookReceiver.start();
    // `nest build worker` when a source changed: minutes on a loaded 2-core machine (a run here
    // at load 30 passed Jest's 90 s default waiting for it).
  }, 600_000);

  afterAll(async () => {
    await stopWorker();
    await receiver?.stop();
    await api?.close();
    restoreEnvironment?.();
  });

  function startWorker(): void {
    worker = spawn(process.execPath, [WORKER_MAIN], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
  }

  async function stopWorker(): Promise<void> {
    const child = worker;
    worker = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  it('delivers the event after the restart, and records it once', async () => {
    const merchant = await api.createMerchant();
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    const { body: endpoint } = await api
      .post(ENDPOINTS, merchant, { url: receiver.url })
      .expect(201);
    receiver.replyNext('hang');
    startWorker();
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitFor(async () => receiver.forEvent(eventId).length === 1, 60_000, 'first request');

    await stopWorker();
    startWorker();
    // The killed worker's lease (timeout + 10 s) runs out; then the new one sends it.
    await waitFor(async () => receiver.forEvent(eventId).length === 2, 60_000, 'redelivery');
    let delivery: Delivery | undefined;
    await waitFor(async () => {
      delivery = (await deliveriesOf(api, merchant, eventId)).find(
        (item) => item.webhook_endpoint_id === endpoint.id,
      );
      return delivery?.status === 'Succeeded';
    }, 20_000);
    // The killed attempt left no record (it never finished); the one that counted is stored.
    expect(delivery!.attempts).toEqual([expect.objectContaining({ status_code: 200 })]);
    expect(receiver.forEvent(eventId).map((webhook) => webhook.headers['webhook-id'])).toEqual([
      eventId,
      eventId,
    ]);
  });
});
