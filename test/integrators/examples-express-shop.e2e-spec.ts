import type { INestApplicationContext } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { PaymentsClient } from '@stablecoin-payments/sdk';
import { createShop, Order } from '../../examples/express-shop/shop';
import { startLiveApi } from '../support/live-api';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';
import { startWebhookWorker } from '../support/webhook-worker';

describe('examples/express-shop against the live API: checkout, hosted page, verified webhook, paid', () => {
  let api: TestApi;
  let apiUrl: string;
  let worker: INestApplicationContext;
  let shopServer: Server;
  let shopUrl: string;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    ({ api, url: apiUrl } = await startLiveApi());
    // The worker's delivery loop sends the webhooks, as in production.
    worker = await startWebhookWorker();
    shopServer = createServer();
    await new Promise<void>((resolve) => shopServer.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shopServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    shopServer?.closeAllConnections();
    await new Promise((resolve) => shopServer?.close(resolve));
    await worker?.close();
    await api?.close();
    restoreEnvironment?.();
  });

  it('an order redirects to its session, ignores a forged webhook and is paid by the real one', async () => {
    const merchant = await api.createMerchant({ name: 'Example Shop' });
    const payments = new PaymentsClient({ apiKey: merchant.apiKey, baseUrl: apiUrl });
    // The shop's one-time setup, as its README says: an endpoint for its webhook route.
    const endpoint = await payments.post('/v1/webhook-endpoints', {
      body: { url: `${shopUrl}/webhooks/payments`, events: ['checkout.session.paid'] },
    });
    const shop = createShop({
      apiKey: merchant.apiKey,
      apiUrl,
      webhookSecret: endpoint.secret,
      shopUrl,
    });
    shopServer.on('request', shop.app);

    const checkout = await fetch(`${shopUrl}/orders`, { method: 'POST', redirect: 'manual' });
    expect(checkout.status).toBe(303);
    const hostedPage = checkout.headers.get('location')!;
    const [order] = [...shop.orders.values()];
    const sessions = await payments.get('/v1/checkout/sessions');
    const session = sessions.find((candidate) => candidate.client_reference_id === order.id)!;
    expect(hostedPage).toBe(session.url);
    expect(session.success_url).toBe(`${shopUrl}/orders/${order.id}`);
    const page = await fetch(`${apiUrl}${new URL(hostedPage).pathname}`);
    expect(page.status).toBe(200);

    const orderNow = async () =>
      (await (await fetch(`${shopUrl}/orders/${order.id}`)).json()) as Order;
    const forged = await fetch(`${shopUrl}/webhooks/payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,Zm9yZ2Vk',
      },
      body: JSON.stringify({
        type: 'checkout.session.paid',
        data: { object: { ...session, status: 'Paid' } },
      }),
    });
    expect(forged.status).toBe(400);
    expect((await orderNow()).status).toBe('awaiting_payment');

    await payments.post('/v1/test-helpers/checkout/sessions/{id}/payments', {
      params: { path: { id: session.id } },
      body: { amount: session.amount },
    });

    await waitFor(
      async () => (await orderNow()).status === 'paid',
      60_000,
      'the order marked paid by the webhook',
    );
  });
});
