import type { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { ApiKeysService, ApiScope } from '@app/auth';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, verifyStripeStyle, withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

// Waits for the worker: room for a slow shared machine.
jest.setTimeout(90_000);

interface Delivery {
  webhook_endpoint_id: string;
  status: string;
  attempt_count: number;
  attempts: Array<{ status_code: number | null; succeeded: boolean }>;
}

describe('POST /v1/webhook-endpoints/{id}/test: a test event through the real delivery path', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let restoreEnvironment: () => void;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    for (const receiver of receivers) await receiver.stop();
    restoreEnvironment?.();
  });

  const receiver = async () => {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  const restrictedKey = async (merchant: TestMerchant, scopes: ApiScope[]) => {
    const key = await api.app
      .get(ApiKeysService)
      .create({ merchantId: merchant.id, name: `Only ${scopes.join(', ')}`, scopes });
    return { ...merchant, apiKey: key.api_key, apiKeyId: key.id };
  };

  it('delivers a signed webhook_endpoint.test to that endpoint only, listed with its attempt', async () => {
    const merchant = await api.createMerchant();
    const target = await receiver();
    const other = await receiver();
    // Subscribed to payouts only: a test event reaches it all the same.
    const endpoint = (
      await api
        .post(ENDPOINTS, merchant, {
          url: `${target.url}/hooks`,
          events: ['payout.completed'],
        })
        .expect(201)
    ).body as { id: string; secret: string };
    // Another endpoint of the merchant, receiving every type: it gets no test event.
    await api.post(ENDPOINTS, merchant, { url: `${other.url}/all` }).expect(201);

    const sent = await api.post(`${ENDPOINTS}/${endpoint.id}/test`, merchant, {}).expect(202);
    expect(sent.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'webhook_endpoint.test',
      created_at: expect.any(String),
      livemode: false,
      sequence: 1,
      previous_status: null,
      sub_merchant_code: null,
      data: {
        object: expect.objectContaining({ id: endpoint.id, url: `${target.url}/hooks` }),
        test: true,
      },
    });
    const eventId = sent.body.id as string;

    await waitFor(async () => target.received.length === 1, 20_000, 'the test webhook');
    const [webhook] = target.received;
    expect(webhook.path).toBe('/hooks');
    expect(JSON.parse(webhook.body)).toMatchObject({
      id: eventId,
      type: 'webhook_endpoint.test',
      data: { test: true, object: { id: endpoint.id } },
    });
    // Signed like any other event, both ways.
    expect(() =>
      new Webhook(endpoint.secret).verify(webhook.body, {
        'webhook-id': String(webhook.headers['webhook-id']),
        'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
        'webhook-signature': String(webhook.headers['webhook-signature']),
      }),
    ).not.toThrow();
    expect(verifyStripeStyle(webhook, endpoint.secret)).toBe(true);

    let deliveries: Delivery[] = [];
    await waitFor(
      async () => {
        deliveries = (await api.get(`/v1/events/${eventId}/deliveries`, merchant).expect(200))
          .body as Delivery[];
        return deliveries[0]?.status === 'Succeeded';
      },
      20_000,
      'the delivery recorded',
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      webhook_endpoint_id: endpoint.id,
      status: 'Succeeded',
      attempt_count: 1,
      attempts: [{ status_code: 200, succeeded: true }],
    });
    // In the event list, under its own type.
    const listed = await api.get('/v1/events?type=webhook_endpoint.test', merchant).expect(200);
    expect((listed.body as Array<{ id: string }>).map((event) => event.id)).toEqual([eventId]);
    expect(other.received).toEqual([]);

    // Resent without naming an endpoint, it still goes to the tested endpoint only.
    await api.post(`/v1/events/${eventId}/resend`, merchant, {}).expect(202);
    await waitFor(async () => target.received.length === 2, 20_000, 'the resent test webhook');
    expect(other.received).toEqual([]);
  });

  it("answers 404 for another merchant's endpoint, 409 for a disabled one, 403 without the scope", async () => {
    const merchant = await api.createMerchant();
    const stranger = await api.createMerchant();
    const endpoint = (
      await api.post(ENDPOINTS, merchant, { url: 'http://127.0.0.1:9/hooks' }).expect(201)
    ).body as { id: string };

    const foreign = await api.post(`${ENDPOINTS}/${endpoint.id}/test`, stranger, {}).expect(404);
    expect(foreign.body.error.code).toBe('resource_missing');
    await api.post(`${ENDPOINTS}/we_doesNotExist0000000000/test`, merchant, {}).expect(404);

    const reader = await restrictedKey(merchant, ['webhook_endpoints:read']);
    const refused = await api.post(`${ENDPOINTS}/${endpoint.id}/test`, reader, {}).expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'insufficient_scope',
      message: 'This API key does not have the scope webhook_endpoints:write.',
    });
    const writer = await restrictedKey(merchant, ['webhook_endpoints:write']);
    await api.post(`${ENDPOINTS}/${endpoint.id}/test`, writer, {}).expect(202);

    await api.patch(`${ENDPOINTS}/${endpoint.id}`, merchant, { enabled: false }).expect(200);
    const disabled = await api.post(`${ENDPOINTS}/${endpoint.id}/test`, merchant, {}).expect(409);
    expect(disabled.body.error.code).toBe('webhook_endpoint_disabled');
    // Nothing was written for the refused calls: only the writer's test event exists.
    expect(await api.count('events', `object_id = $1`, [endpoint.id])).toBe(1);
  });
});
