import type { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { EncryptWebhookSecrets1765400000000 } from '../../libs/database/src/migrations/1765400000000-encrypt-webhook-secrets';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import {
  ENDPOINTS,
  PayoutEventSource,
  verifyStripeStyle,
  withEnvironment,
} from '../support/webhook-env';
import { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

// Several waits for the worker per test: room for a slow shared machine.
jest.setTimeout(90_000);

interface StoredSecrets {
  secret: string;
  previous_secret: string | null;
}

describe('Webhook secrets are encrypted at rest', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let source: PayoutEventSource;
  let target: WebhookReceiver;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
    source = new PayoutEventSource(api);
    target = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await target?.stop();
    restoreEnvironment?.();
  });

  const stored = async (endpointId: string): Promise<StoredSecrets> =>
    (
      await api.dataSource.query(
        `SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1`,
        [endpointId],
      )
    )[0];

  /** The next event's delivery to the receiver. */
  const nextDelivery = async (merchant: TestMerchant): Promise<ReceivedWebhook> => {
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitFor(async () => target.forEvent(eventId).length === 1, 20_000, 'delivery');
    return target.forEvent(eventId)[0];
  };

  const verifies = (webhook: ReceivedWebhook, secret: string): boolean => {
    try {
      new Webhook(secret).verify(webhook.body, {
        'webhook-id': String(webhook.headers['webhook-id']),
        'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
        'webhook-signature': String(webhook.headers['webhook-signature']),
      });
    } catch {
      return false;
    }
    return verifyStripeStyle(webhook, secret);
  };

  it('stores only sealed secrets, shows each once, and signs with them', async () => {
    const merchant = await api.createMerchant();
    await source.fund(merchant);
    const { body: endpoint } = await api.post(ENDPOINTS, merchant, { url: target.url }).expect(201);
    const atCreation = await stored(endpoint.id);
    expect(atCreation.secret).toMatch(/^v1:/);
    expect(atCreation.secret).not.toContain(endpoint.secret.slice('whsec_'.length));
    const { body: read } = await api.get(`${ENDPOINTS}/${endpoint.id}`, merchant).expect(200);
    expect(read).not.toHaveProperty('secret');
    expect(verifies(await nextDelivery(merchant), endpoint.secret)).toBe(true);

    const { body: rotated } = await api
      .post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`, merchant, { grace_period_hours: 1 })
      .expect(200);
    const afterRotation = await stored(endpoint.id);
    expect(afterRotation.secret).toMatch(/^v1:/);
    expect(afterRotation.secret).not.toContain(rotated.secret.slice('whsec_'.length));
    expect(afterRotation.previous_secret).toBe(atCreation.secret);
    const webhook = await nextDelivery(merchant);
    expect(verifies(webhook, rotated.secret)).toBe(true);
    expect(verifies(webhook, endpoint.secret)).toBe(true);
  });

  it('the migration seals the plaintext secrets of earlier rows, and down opens them', async () => {
    const merchant = await api.createMerchant();
    await source.fund(merchant);
    const { body: endpoint } = await api.post(ENDPOINTS, merchant, { url: target.url }).expect(201);
    const previous = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
    // A row as the previous release wrote it.
    await api.dataSource.query(
      `UPDATE webhook_endpoints
          SET secret = $2, previous_secret = $3, previous_secret_expires_at = now() + interval '1 hour'
        WHERE id = $1`,
      [endpoint.id, endpoint.secret, previous],
    );
    // Plaintext of the previous release still signs (a row written during a rolling deploy).
    expect(verifies(await nextDelivery(merchant), endpoint.secret)).toBe(true);

    const migration = new EncryptWebhookSecrets1765400000000();
    const queryRunner = api.dataSource.createQueryRunner();
    try {
      await migration.up(queryRunner);
      const sealed = await stored(endpoint.id);
      expect(sealed.secret).toMatch(/^v1:/);
      expect(sealed.previous_secret).toMatch(/^v1:/);
      const webhook = await nextDelivery(merchant);
      expect(verifies(webhook, endpoint.secret)).toBe(true);
      expect(verifies(webhook, previous)).toBe(true);
      // Again: rows already sealed are left as they are.
      await migration.up(queryRunner);
      expect(await stored(endpoint.id)).toEqual(sealed);

      await migration.down(queryRunner);
      expect(await stored(endpoint.id)).toEqual({
        secret: endpoint.secret,
        previous_secret: previous,
      });
      await migration.up(queryRunner);
      expect((await stored(endpoint.id)).secret).toMatch(/^v1:/);
    } finally {
      await queryRunner.release();
    }
  });
});
