// A shop that takes stablecoin payments with the SDK: an order creates a checkout session, the
// customer is sent to the hosted page, and the signed `checkout.session.paid` webhook marks the
// order paid. Orders live in memory here; a real shop keeps them in its database.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { PaymentsClient, verifyWebhook } from '@stablecoin-payments/sdk';

export interface ShopOptions {
  apiKey: string; // sk_test_... in the sandbox
  apiUrl: string; // e.g. http://localhost:3000
  webhookSecret: string; // whsec_..., shown once when the webhook endpoint is created
  shopUrl: string; // where customers reach this shop (the hosted page sends them back here)
}

export type Order = { id: string; amount: string; status: 'awaiting_payment' | 'paid' };

export function createShop(options: ShopOptions) {
  const payments = new PaymentsClient({ apiKey: options.apiKey, baseUrl: options.apiUrl });
  const orders = new Map<string, Order>();
  const app = express();

  // Checkout: one session per order (the order id as Idempotency-Key), then off to the hosted page.
  app.post('/orders', async (_req, res, next) => {
    const order: Order = { id: randomUUID(), amount: '25.00', status: 'awaiting_payment' };
    orders.set(order.id, order);
    const session = await payments
      .post('/v1/checkout/sessions', {
        params: { header: { 'Idempotency-Key': `order-${order.id}` } },
        body: {
          pricing_amount: order.amount,
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
          client_reference_id: order.id,
          success_url: `${options.shopUrl}/orders/${order.id}`,
        },
      })
      .catch(next);
    if (session) res.redirect(303, session.url);
  });

  app.get('/orders/:id', (req, res) => {
    const order = orders.get(req.params.id);
    return order ? res.json(order) : res.sendStatus(404);
  });

  // Verified over the raw bytes, before anything is parsed. Retries of one event share its id.
  app.post('/webhooks/payments', express.raw({ type: 'application/json' }), (req, res) => {
    let event;
    try {
      event = verifyWebhook(req.body, req.headers, options.webhookSecret);
    } catch {
      return res.sendStatus(400);
    }
    const session = event.data.object;
    if (event.type === 'checkout.session.paid' && 'client_reference_id' in session) {
      const order = orders.get(session.client_reference_id ?? '');
      if (order) order.status = 'paid';
    }
    res.sendStatus(200); // answer fast: anything else is retried
  });

  return { app, orders };
}

if (require.main === module) {
  const port = Number(process.env.PORT ?? 4000);
  const { app } = createShop({
    apiKey: process.env.PAYMENTS_API_KEY ?? '',
    apiUrl: process.env.PAYMENTS_API_URL ?? 'http://localhost:3000',
    webhookSecret: process.env.PAYMENTS_WEBHOOK_SECRET ?? '',
    shopUrl: process.env.SHOP_URL ?? `http://localhost:${port}`,
  });
  app.listen(port, () => console.warn(`Shop on http://localhost:${port}`));
}
