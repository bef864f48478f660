import type { INestApplicationContext } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  PaymentsApiError,
  PaymentsClient,
  verifyWebhook,
  WebhookVerificationError,
} from '@stablecoin-payments/sdk';
import { startLiveApi } from '../support/live-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

const SESSION = {
  pricing_amount: '10',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
} as const;

interface Forwarded {
  idempotencyKey: string | null;
  status: number;
  replayed: string | null;
}

/**
 * A proxy in front of the API that loses the answer to the first request (the API did the work;
 * the client sees a dropped connection), then passes everything through.
 */
async function lossyProxy(
  target: string,
): Promise<{ url: string; seen: Forwarded[]; server: Server }> {
  const seen: Forwarded[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && name !== 'host') headers.set(name, value);
      }
      const upstream = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      seen.push({
        idempotencyKey: headers.get('idempotency-key'),
        status: upstream.status,
        replayed: upstream.headers.get('idempotent-replayed'),
      });
      if (seen.length === 1) return response.socket?.destroy();
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('SDK against the live API', () => {
  let api: TestApi;
  let url: string;
  let merchant: TestMerchant;
  let payments: PaymentsClient;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    // Read when the app starts: the webhook receiver is a local http URL.
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    ({ api, url } = await startLiveApi());
    merchant = await api.createMerchant({ name: 'SDK Shop' });
    payments = new PaymentsClient({ apiKey: merchant.apiKey, baseUrl: url });
  });

  afterAll(async () => {
    await api?.close();
    restoreEnvironment?.();
  });

  it('creates a checkout session, typed; a retry after a lost answer reuses the key and is replayed', async () => {
    const proxy = await lossyProxy(url);
    try {
      const client = new PaymentsClient({
        apiKey: merchant.apiKey,
        baseUrl: proxy.url,
        retry: { baseDelayMs: 10 },
      });
      const before = await api.count('checkout_sessions', 'merchant_id = $1', [merchant.id]);

      const session = await client.post('/v1/checkout/sessions', {
        body: { ...SESSION, client_reference_id: 'order-1' },
      });

      expect(session.id).toMatch(/^cs_/);
      expect(session.url).toContain(session.id);
      expect(session.client_reference_id).toBe('order-1');
      expect(proxy.seen).toHaveLength(2);
      const [lost, retried] = proxy.seen;
      expect(lost.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(retried.idempotencyKey).toBe(lost.idempotencyKey);
      expect([lost.status, retried.status]).toEqual([201, 201]);
      expect(retried.replayed).toBe('true');
      // The API ran it once: one session, the one the lost answer carried.
      expect(await api.count('checkout_sessions', 'merchant_id = $1', [merchant.id])).toBe(
        before + 1,
      );
      const fetched = await payments.get('/v1/checkout/sessions/{id}', {
        params: { path: { id: session.id } },
      });
      expect(fetched.amount).toBe(session.amount);
    } finally {
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });

  it('a 4xx is a PaymentsApiError with the status, code, param and request id of the envelope', async () => {
    let requestIdHeader: string | null = null;
    const client = new PaymentsClient({
      apiKey: merchant.apiKey,
      baseUrl: url,
      fetch: async (request) => {
        const response = await fetch(request);
        requestIdHeader = response.headers.get('Request-Id');
        return response;
      },
    });

    const failure = await client
      .post('/v1/checkout/sessions', { body: { ...SESSION, pricing_amount: '-5' } })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PaymentsApiError);
    const error = failure as PaymentsApiError;
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toBe('pricing_amount');
    expect(error.message).toMatch(/pricing_amount/);
    expect(error.requestId).toMatch(/^req_/);
    expect(error.requestId).toBe(requestIdHeader);

    const missing = await payments
      .get('/v1/checkout/sessions/{id}', { params: { path: { id: 'cs_doesnotexist' } } })
      .catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ status: 404, code: 'resource_missing' });
  });

  it('list() walks every page by following Link rel="next"', async () => {
    const owner = await api.createMerchant({ name: 'SDK Pages' });
    const created: string[] = [];
    const sent: string[] = [];
    const client = new PaymentsClient({
      apiKey: owner.apiKey,
      baseUrl: url,
      fetch: (request) => {
        sent.push(new URL(request.url).search);
        return fetch(request);
      },
    });
    for (let index = 0; index < 5; index++) {
      created.push((await client.post('/v1/checkout/sessions', { body: SESSION })).id);
    }
    sent.length = 0;

    const listed: string[] = [];
    for await (const session of client.list('/v1/checkout/sessions', {
      params: { query: { page_size: 2 } },
    })) {
      listed.push(session.id);
    }

    expect(listed).toEqual([...created].reverse());
    expect(sent).toHaveLength(3);
    expect(sent[1]).toMatch(/page=2/);
    expect(sent[2]).toMatch(/page=3/);
    expect(sent.every((search) => search.includes('page_size=2'))).toBe(true);
  });

  it('acts for a sub-merchant with X-Sub-Merchant-Code (subMerchantCode or forSubMerchant)', async () => {
    const psp = await api.createMerchant({ name: 'SDK PSP', kind: 'psp' });
    const client = new PaymentsClient({ apiKey: psp.apiKey, baseUrl: url });
    await client.post('/v1/sub-merchants', {
      body: { code: 'sdk-seller', name: 'Seller' },
    });

    const own = await client.post('/v1/checkout/sessions', { body: SESSION });
    const theirs = await client
      .forSubMerchant('sdk-seller')
      .post('/v1/checkout/sessions', { body: SESSION });
    const configured = new PaymentsClient({
      apiKey: psp.apiKey,
      baseUrl: url,
      subMerchantCode: 'sdk-seller',
    });

    expect(own.sub_merchant_code).toBeNull();
    expect(theirs.sub_merchant_code).toBe('sdk-seller');
    const again = await configured.post('/v1/checkout/sessions', { body: SESSION });
    expect(again.sub_merchant_code).toBe('sdk-seller');
    // Lists take the sub-merchant as a query parameter (the header scopes what is created).
    const listed = await client.get('/v1/checkout/sessions', {
      params: { query: { sub_merchant_code: 'sdk-seller' } },
    });
    expect(listed.map((session) => session.id)).toEqual([again.id, theirs.id]);
  });

  describe('webhooks, as the service signs and delivers them', () => {
    let worker: INestApplicationContext;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      worker = await startWebhookWorker();
      receiver = await WebhookReceiver.start();
    });

    afterAll(async () => {
      await worker?.close();
      await receiver?.stop();
    });

    it('verifyWebhook returns the typed event of a real delivery and refuses a tampered one', async () => {
      const shop = await api.createMerchant({ name: 'SDK Webhooks' });
      const client = new PaymentsClient({ apiKey: shop.apiKey, baseUrl: url });
      const endpoint = await client.post('/v1/webhook-endpoints', {
        body: { url: receiver.url, events: ['checkout.session.paid'] },
      });
      const session = await client.post('/v1/checkout/sessions', { body: SESSION });
      await client.post('/v1/test-helpers/checkout/sessions/{id}/payments', {
        params: { path: { id: session.id } },
        body: { amount: session.amount },
      });

      const delivered = () =>
        receiver.received.find((webhook) => webhook.body.includes(session.id));
      await waitFor(async () => delivered() !== undefined, 60_000, 'the paid webhook');
      const webhook = delivered()!;

      const event = verifyWebhook(webhook.body, webhook.headers, endpoint.secret);
      expect(event.type).toBe('checkout.session.paid');
      expect(event.id).toBe(webhook.headers['webhook-id']);
      expect(event.data.object.id).toBe(session.id);
      // Raw bytes verify the same; a Headers object too.
      const headers = new Headers(webhook.headers as Record<string, string>);
      expect(verifyWebhook(Buffer.from(webhook.body), headers, endpoint.secret).id).toBe(event.id);

      const tampered = webhook.body.replace('"status":"Paid"', '"status":"Expired"');
      expect(tampered).not.toBe(webhook.body);
      expect(() => verifyWebhook(tampered, webhook.headers, endpoint.secret)).toThrow(
        WebhookVerificationError,
      );
      const other = await client.post('/v1/webhook-endpoints', {
        body: { url: `${receiver.url}/other`, events: ['payout.completed'] },
      });
      expect(() => verifyWebhook(webhook.body, webhook.headers, other.secret)).toThrow(
        WebhookVerificationError,
      );
      // During a rotation both secrets are tried.
      expect(verifyWebhook(webhook.body, webhook.headers, [other.secret, endpoint.secret]).id).toBe(
        event.id,
      );
    });
  });
});
