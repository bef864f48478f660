import type { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import {
  ENDPOINTS,
  PayoutEventSource,
  verifyStripeStyle,
  withEnvironment,
} from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';
import {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryQueueRepository,
} from '../../libs/events/src/delivery/delivery-queue.repository';

// Several waits for the worker per test: room for a slow shared machine.
jest.setTimeout(90_000);

interface Delivery {
  webhook_endpoint_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: Array<{
    status_code: number | null;
    succeeded: boolean;
    error: string | null;
    response_excerpt: string | null;
  }>;
}

describe('Webhooks: signed deliveries by the worker to real receivers', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let source: PayoutEventSource;
  let restoreEnvironment: () => void;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
    source = new PayoutEventSource(api);
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
  const fundedMerchant = async (kind: 'direct' | 'psp' = 'direct') => {
    const merchant = await api.createMerchant({ kind });
    await source.fund(merchant);
    return merchant;
  };
  const createEndpoint = async (
    merchant: TestMerchant,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => (await api.post(ENDPOINTS, merchant, body, headers).expect(201)).body;
  const deliveries = async (merchant: TestMerchant, eventId: string) =>
    (await api.get(`/v1/events/${eventId}/deliveries`, merchant).expect(200)).body as Delivery[];
  const deliveryTo = async (merchant: TestMerchant, eventId: string, endpointId: string) =>
    (await deliveries(merchant, eventId)).find((item) => item.webhook_endpoint_id === endpointId);
  const waitForDelivery = async (
    merchant: TestMerchant,
    eventId: string,
    endpointId: string,
    status: string,
    timeoutMs = 20_000,
  ) => {
    let found: Delivery | undefined;
    await waitFor(
      async () => {
        found = await deliveryTo(merchant, eventId, endpointId);
        return found?.status === status;
      },
      timeoutMs,
      `delivery ${status}`,
    );
    return found!;
  };

  it('creates an endpoint with a whsec_ secret shown once, and never lists it', async () => {
    const merchant = await api.createMerchant();
    const created = await createEndpoint(merchant, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['payout.completed'],
      description: 'Orders',
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{22}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['payout.completed'],
      description: 'Orders',
      enabled: true,
      disabled_reason: null,
      livemode: false,
      sub_merchant_code: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { body: read } = await api.get(`${ENDPOINTS}/${created.id}`, merchant).expect(200);
    expect(read).not.toHaveProperty('secret');
    const { body: list, headers } = await api.get(ENDPOINTS, merchant).expect(200);
    expect(list.map((item: { id: string }) => item.id)).toEqual([created.id]);
    expect(list[0]).not.toHaveProperty('secret');
    expect(headers['x-total-count']).toBe('1');
  });

  it('refuses a bad url or event type with a 400 naming the field', async () => {
    const merchant = await api.createMerchant();
    const url = await api.post(ENDPOINTS, merchant, { url: 'ftp://example.com/x' }).expect(400);
    expect(url.body.error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    const type = await api
      .post(ENDPOINTS, merchant, { url: 'http://127.0.0.1:9/x', events: ['payout.sent'] })
      .expect(400);
    expect(type.body.error).toMatchObject({ code: 'parameter_invalid', param: 'events' });
  });

  it('delivers an event whose signatures verify with the standardwebhooks package and node:crypto', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: `${target.url}/hooks` });
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitFor(async () => target.forEvent(eventId).length === 1, 20_000, 'delivery');

    const [webhook] = target.forEvent(eventId);
    expect(webhook.path).toBe('/hooks');
    expect(webhook.headers['content-type']).toBe('application/json');
    const verified = new Webhook(endpoint.secret).verify(webhook.body, {
      'webhook-id': String(webhook.headers['webhook-id']),
      'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
      'webhook-signature': String(webhook.headers['webhook-signature']),
    });
    expect(verified).toMatchObject({ id: eventId, type: 'payout.created' });
    expect(verifyStripeStyle(webhook, endpoint.secret)).toBe(true);
    expect(verifyStripeStyle({ ...webhook, body: webhook.body + ' ' }, endpoint.secret)).toBe(
      false,
    );
    // The body is the event exactly as the API returns it.
    const { body: event } = await api.get(`/v1/events/${eventId}`, merchant).expect(200);
    expect(JSON.parse(webhook.body)).toEqual(event);
    expect(event).toMatchObject({
      type: 'payout.created',
      sequence: 1,
      previous_status: null,
      livemode: false,
      sub_merchant_code: null,
      data: { object: { id: payoutId, status: 'Pending' } },
    });
    const { body: payout } = await api.get(`/v1/payouts/${payoutId}`, merchant).expect(200);
    expect(event.data.object).toEqual(payout);
    const delivered = await waitForDelivery(merchant, eventId, endpoint.id, 'Succeeded');
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ status_code: 200, succeeded: true, error: null }),
    ]);
  });

  it('retries a 500 and, after the 200, never sends that event again', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    target.replyNext({ status: 500, body: 'database down' });
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');

    // The first retry is due within 30 seconds.
    const delivered = await waitForDelivery(merchant, eventId, endpoint.id, 'Succeeded', 40_000);
    expect(delivered.attempt_count).toBe(2);
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ status_code: 500, succeeded: false, error: 'HTTP 500' }),
      expect.objectContaining({ status_code: 200, succeeded: true }),
    ]);
    expect(target.forEvent(eventId)).toHaveLength(2);
    const ids = target.forEvent(eventId).map((webhook) => webhook.headers['webhook-id']);
    expect(ids).toEqual([eventId, eventId]);
  });

  it('records an answer with a NUL byte (PostgreSQL text refuses it) and sends the event once', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    target.replyAlways({ status: 200, body: 'ok\u0000\ud800 done' });
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');

    // Unrecorded, the delivery stayed leased and went out again every lease (25 s), forever.
    const delivered = await waitForDelivery(merchant, eventId, endpoint.id, 'Succeeded');
    expect(delivered.attempts).toEqual([
      expect.objectContaining({
        status_code: 200,
        succeeded: true,
        response_excerpt: 'ok\ufffd done',
      }),
    ]);
    expect(target.forEvent(eventId)).toHaveLength(1);
  });

  it('still records an attempt, without its details, when recording it in full fails', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    const queue = worker.get(DeliveryQueueRepository);
    const record = queue.recordAttempt.bind(queue);
    let refused = 0;
    // Only this endpoint's first record fails: earlier tests' retries share the worker.
    const spy = jest
      .spyOn(queue, 'recordAttempt')
      .mockImplementation(
        async (claim: ClaimedDelivery, attempt: AttemptRecord, outcome: DeliveryOutcome) => {
          if (claim.endpoint_id === endpoint.id && refused++ === 0) {
            throw new Error('simulated: the database refused the attempt');
          }
          return record(claim, attempt, outcome);
        },
      );
    try {
      target.replyNext({ status: 500, body: 'down' });
      const payoutId = await source.createPayout(merchant);
      const eventId = await source.eventId(merchant, payoutId, 'payout.created');
      let delivery: Delivery | undefined;
      await waitFor(async () => {
        delivery = await deliveryTo(merchant, eventId, endpoint.id);
        return delivery?.attempt_count === 1;
      }, 20_000);
      // The retry schedule still applies: the next attempt is its first retry (about 10 s).
      expect(delivery).toMatchObject({ status: 'Pending' });
      expect(delivery!.attempts).toEqual([
        expect.objectContaining({
          status_code: 500,
          succeeded: false,
          response_excerpt: null,
          error: 'delivery failed (details could not be stored)',
        }),
      ]);
      expect(new Date(delivery!.next_attempt_at!).getTime()).toBeGreaterThan(Date.now());
      expect(target.forEvent(eventId)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('honours Retry-After on a 429', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    target.replyNext({ status: 429, headers: { 'Retry-After': '600' } });
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    let delivery: Delivery | undefined;
    await waitFor(async () => {
      delivery = await deliveryTo(merchant, eventId, endpoint.id);
      return delivery?.attempt_count === 1;
    }, 20_000);
    const waitMs = new Date(delivery!.next_attempt_at!).getTime() - Date.now();
    expect(waitMs).toBeGreaterThan(500_000);
    expect(waitMs).toBeLessThanOrEqual(600_000);
  });

  it('disables an endpoint that answers 410 at once, and tells the other endpoints', async () => {
    const merchant = await fundedMerchant();
    const gone = await receiver();
    const watcher = await receiver();
    gone.replyAlways({ status: 410, body: 'gone' });
    const goneEndpoint = await createEndpoint(merchant, { url: gone.url });
    await createEndpoint(merchant, { url: watcher.url, events: ['webhook_endpoint.disabled'] });
    const first = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, first, 'payout.created');

    const failed = await waitForDelivery(merchant, eventId, goneEndpoint.id, 'Failed');
    expect(failed.attempts).toEqual([
      expect.objectContaining({ status_code: 410, error: expect.stringContaining('410') }),
    ]);
    const { body: endpoint } = await api.get(`${ENDPOINTS}/${goneEndpoint.id}`, merchant);
    expect(endpoint).toMatchObject({ enabled: false, disabled_reason: 'endpoint_gone' });
    await waitFor(async () => watcher.received.length === 1, 20_000, 'disabled event');
    expect(watcher.events()[0]).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { object: { id: goneEndpoint.id, enabled: false, disabled_reason: 'endpoint_gone' } },
    });
    expect(watcher.events()[0].data.object).not.toHaveProperty('secret');

    // Nothing more goes to it.
    const second = await source.createPayout(merchant);
    const secondEvent = await source.eventId(merchant, second, 'payout.created');
    expect(await deliveryTo(merchant, secondEvent, goneEndpoint.id)).toBeUndefined();
    expect(gone.received).toHaveLength(1);
  });

  it('stops hammering a dead endpoint: after a few failures its queue waits for a probe', async () => {
    const merchant = await fundedMerchant();
    const closed = await receiver();
    const deadUrl = closed.url;
    await closed.stop();
    const endpoint = await createEndpoint(merchant, { url: deadUrl });
    const events = 30;
    for (let index = 0; index < events; index++) await source.createPayout(merchant);
    const attempts = async () =>
      Number(
        (
          await api.dataSource.query(
            `SELECT count(*) AS count FROM webhook_attempts a
               JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
            [endpoint.id],
          )
        )[0].count,
      );
    // Every delivery waits (a retry or the open breaker), none is due any more...
    await waitFor(
      async () =>
        (await api.count(
          'webhook_deliveries',
          `endpoint_id = $1 AND status = 'Pending' AND next_attempt_at <= now()`,
          [endpoint.id],
        )) === 0 &&
        (await api.count('webhook_deliveries', 'endpoint_id = $1', [endpoint.id])) === events,
      20_000,
      'all deliveries waiting',
    );
    // ...and most were never tried: the breaker opened after a few connection refusals.
    expect(await attempts()).toBeGreaterThanOrEqual(3);
    expect(await attempts()).toBeLessThan(events / 2);
  });

  it('disables an endpoint that has failed everything for 5 days', async () => {
    const merchant = await fundedMerchant();
    const down = await receiver();
    down.replyAlways({ status: 503 });
    const endpoint = await createEndpoint(merchant, { url: down.url });
    await api.dataSource.query(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`,
      [endpoint.id],
    );
    const payoutId = await source.createPayout(merchant);
    await source.eventId(merchant, payoutId, 'payout.created');
    let read: { enabled: boolean; disabled_reason: string | null } | undefined;
    await waitFor(async () => {
      read = (await api.get(`${ENDPOINTS}/${endpoint.id}`, merchant).expect(200)).body;
      return read!.enabled === false;
    }, 20_000);
    expect(read!.disabled_reason).toBe('failing');
    const disabledEvent = await source.eventId(merchant, endpoint.id, 'webhook_endpoint.disabled');
    expect(disabledEvent).toMatch(/^evt_/);
  });

  it('sends an endpoint only the event types it asked for', async () => {
    const merchant = await fundedMerchant();
    const everything = await receiver();
    const rejectedOnly = await receiver();
    await createEndpoint(merchant, { url: everything.url });
    await createEndpoint(merchant, { url: rejectedOnly.url, events: ['payout.rejected'] });
    const payoutId = await source.createPayout(merchant);
    await source.reject(payoutId);
    await waitFor(async () => everything.received.length === 2, 20_000, 'both events');
    await waitFor(async () => rejectedOnly.received.length === 1, 20_000, 'the rejection');
    expect(everything.events().map((event) => [event.type, event.sequence])).toEqual(
      expect.arrayContaining([
        ['payout.created', 1],
        ['payout.rejected', 2],
      ]),
    );
    expect(rejectedOnly.events().map((event) => event.type)).toEqual(['payout.rejected']);
  });

  it('sends nothing to a disabled or deleted endpoint', async () => {
    const merchant = await fundedMerchant();
    const live = await receiver();
    const disabled = await receiver();
    const deleted = await receiver();
    await createEndpoint(merchant, { url: live.url });
    const disabledEndpoint = await createEndpoint(merchant, { url: disabled.url });
    const deletedEndpoint = await createEndpoint(merchant, { url: deleted.url });
    const { body: patched } = await api
      .patch(`${ENDPOINTS}/${disabledEndpoint.id}`, merchant, { enabled: false })
      .expect(200);
    expect(patched).toMatchObject({ enabled: false, disabled_reason: 'disabled_by_merchant' });
    await api.delete(`${ENDPOINTS}/${deletedEndpoint.id}`, merchant).expect(204);
    await api.get(`${ENDPOINTS}/${deletedEndpoint.id}`, merchant).expect(404);

    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitFor(async () => live.forEvent(eventId).length === 1, 20_000, 'live delivery');
    expect((await deliveries(merchant, eventId)).map((item) => item.webhook_endpoint_id)).toEqual([
      expect.not.stringMatching(new RegExp(`${disabledEndpoint.id}|${deletedEndpoint.id}`)),
    ]);
    expect(disabled.received).toHaveLength(0);
    expect(deleted.received).toHaveLength(0);
  });

  it('signs with both secrets during a rotation, each verifying on its own', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    const { body: rotated } = await api
      .post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`, merchant, { grace_period_hours: 2 })
      .expect(200);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(new Date(rotated.previous_secret_expires_at).getTime()).toBeGreaterThan(
      Date.now() + 3_500_000,
    );
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitFor(async () => target.forEvent(eventId).length === 1, 20_000, 'delivery');
    const [webhook] = target.forEvent(eventId);
    const headers = {
      'webhook-id': String(webhook.headers['webhook-id']),
      'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
      'webhook-signature': String(webhook.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, endpoint.secret]) {
      expect(new Webhook(secret).verify(webhook.body, headers)).toMatchObject({ id: eventId });
      expect(verifyStripeStyle(webhook, secret)).toBe(true);
    }
    const stranger = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect(() => new Webhook(stranger).verify(webhook.body, headers)).toThrow();

    // Without a grace period the old secret stops at once.
    const { body: again } = await api
      .post(`${ENDPOINTS}/${endpoint.id}/rotate-secret`, merchant, { grace_period_hours: 0 })
      .expect(200);
    expect(again.previous_secret_expires_at).toBeNull();
    const second = await source.createPayout(merchant);
    const secondEvent = await source.eventId(merchant, second, 'payout.created');
    await waitFor(async () => target.forEvent(secondEvent).length === 1, 20_000, 'delivery');
    const [latest] = target.forEvent(secondEvent);
    expect(verifyStripeStyle(latest, again.secret)).toBe(true);
    expect(verifyStripeStyle(latest, rotated.secret)).toBe(false);
  });

  it('resends an event on request and recovers failed deliveries since a time', async () => {
    const merchant = await fundedMerchant();
    const target = await receiver();
    const endpoint = await createEndpoint(merchant, { url: target.url });
    const payoutId = await source.createPayout(merchant);
    const eventId = await source.eventId(merchant, payoutId, 'payout.created');
    await waitForDelivery(merchant, eventId, endpoint.id, 'Succeeded');

    const { body: resent } = await api
      .post(`/v1/events/${eventId}/resend`, merchant, { webhook_endpoint_id: endpoint.id })
      .expect(202);
    expect(resent[0]).toMatchObject({ webhook_endpoint_id: endpoint.id, status: 'Pending' });
    await waitFor(async () => target.forEvent(eventId).length === 2, 20_000, 'resend');
    await waitForDelivery(merchant, eventId, endpoint.id, 'Succeeded');
    // Not to a disabled endpoint (409), nor to an id that is not the merchant's (404).
    const paused = await createEndpoint(merchant, { url: target.url });
    await api.patch(`${ENDPOINTS}/${paused.id}`, merchant, { enabled: false }).expect(200);
    const refused = await api
      .post(`/v1/events/${eventId}/resend`, merchant, { webhook_endpoint_id: paused.id })
      .expect(409);
    expect(refused.body.error).toMatchObject({
      code: 'webhook_endpoint_disabled',
      param: 'webhook_endpoint_id',
    });
    const stranger = await createEndpoint(await api.createMerchant(), { url: target.url });
    await api
      .post(`/v1/events/${eventId}/resend`, merchant, { webhook_endpoint_id: stranger.id })
      .expect(404);
    await api.delete(`${ENDPOINTS}/${paused.id}`, merchant).expect(204);

    // A delivery whose retries ran out while the receiver was down...
    target.replyNext({ status: 500 });
    const failedPayout = await source.createPayout(merchant);
    const failedEvent = await source.eventId(merchant, failedPayout, 'payout.created');
    await waitFor(async () => target.forEvent(failedEvent).length === 1, 20_000, 'attempt');
    await waitFor(
      async () => (await deliveryTo(merchant, failedEvent, endpoint.id))!.attempt_count === 1,
      10_000,
    );
    await api.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'Failed', next_attempt_at = NULL
        WHERE event_id = $1 AND endpoint_id = $2`,
      [failedEvent, endpoint.id],
    );
    // ...comes back with recover.
    const { body: recovery } = await api
      .post(`${ENDPOINTS}/${endpoint.id}/recover`, merchant, {
        since: new Date(Date.now() - 60_000).toISOString(),
      })
      .expect(202);
    expect(recovery).toEqual({ scheduled: 1 });
    await waitForDelivery(merchant, failedEvent, endpoint.id, 'Succeeded');
    expect(target.forEvent(failedEvent)).toHaveLength(2);
  });

  it('keeps tenants apart: another merchant gets 404 for endpoints and events', async () => {
    const owner = await fundedMerchant();
    const stranger = await api.createMerchant();
    const endpoint = await createEndpoint(owner, { url: 'http://127.0.0.1:9/x' });
    const payoutId = await source.createPayout(owner);
    const eventId = await source.eventId(owner, payoutId, 'payout.created');
    for (const path of [
      `${ENDPOINTS}/${endpoint.id}`,
      `/v1/events/${eventId}`,
      `/v1/events/${eventId}/deliveries`,
    ]) {
      const { body } = await api.get(path, stranger).expect(404);
      expect(body.error.code).toBe('resource_missing');
    }
    await api.patch(`${ENDPOINTS}/${endpoint.id}`, stranger, { enabled: false }).expect(404);
    await api.delete(`${ENDPOINTS}/${endpoint.id}`, stranger).expect(404);
    await api.post(`/v1/events/${eventId}/resend`, stranger, {}).expect(404);
    const { body: theirs } = await api.get('/v1/events', stranger).expect(200);
    expect(theirs).toEqual([]);
    const { body: mine } = await api.get(`/v1/events?type=payout.created`, owner).expect(200);
    expect(mine.map((event: { id: string }) => event.id)).toEqual([eventId]);
  });

  it("sends a sub-merchant's endpoint only that sub-merchant's events, marked with its code", async () => {
    const psp = await fundedMerchant('psp');
    const code = `shop-${Date.now()}`;
    await api.post('/v1/sub-merchants', psp, { code, name: 'Shop' }).expect(201);
    const [subMerchant] = await api.dataSource.query(
      `SELECT id FROM sub_merchants WHERE merchant_id = $1 AND code = $2`,
      [psp.id, code],
    );
    await source.fund(psp, subMerchant.id);
    const pspWide = await receiver();
    const shopOnly = await receiver();
    await createEndpoint(psp, { url: pspWide.url });
    const shopEndpoint = await createEndpoint(
      psp,
      { url: shopOnly.url },
      { 'X-Sub-Merchant-Code': code },
    );
    expect(shopEndpoint.sub_merchant_code).toBe(code);
    const own = await source.createPayout(psp);
    const forShop = await source.createPayout(psp, code);
    await waitFor(async () => pspWide.received.length === 2, 20_000, 'both to the PSP');
    await waitFor(async () => shopOnly.received.length === 1, 20_000, 'one to the shop');
    expect(shopOnly.events()[0]).toMatchObject({
      sub_merchant_code: code,
      data: { object: { id: forShop, sub_merchant_code: code } },
    });
    expect(
      pspWide
        .events()
        .map((event) => event.data.object.id)
        .sort(),
    ).toEqual([own, forShop].sort());
  });
});
