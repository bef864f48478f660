import type { INestApplicationContext } from '@nestjs/common';
import Decimal from 'decimal.js';
import { ENDPOINTS, withEnvironment } from '../support/webhook-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

const helper = (id: string, action: string) => `/v1/test-helpers/checkout/sessions/${id}/${action}`;

interface Delivered {
  type: string;
  sequence: number;
  data: { object: { id: string; status: string; amount_received: string } };
}

describe('Sandbox test helpers: a walk through every case, delivered as webhooks (real worker delivery)', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: WebhookReceiver;
  let merchant: TestMerchant;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
    receiver = await WebhookReceiver.start();
    merchant = await api.createMerchant({ name: 'Webhook Sandbox Shop' });
    await api.post(ENDPOINTS, merchant, { url: receiver.url }).expect(201);
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    restoreEnvironment?.();
  });

  it('underpayment, top-up, reorg, expiry and a late payment: each webhook, in sequence', async () => {
    const { body: session } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    const half = new Decimal(session.amount).div(2).toDecimalPlaces(6).toFixed();
    const rest = new Decimal(session.amount).minus(half).toFixed();
    const pay = (amount: string) =>
      api.post(helper(session.id, 'payments'), merchant, { amount }).expect(200);

    await pay(half);
    await pay(rest);
    await api.post(helper(session.id, 'reorg'), merchant, {}).expect(200);
    await api.post(helper(session.id, 'expire'), merchant, {}).expect(200);
    const { body: final } = await pay(rest);
    expect(final.status).toBe('Paid');

    const expected = [
      ['payment_detected', 'Pending'],
      ['payment_confirmed', 'Pending'],
      // One settlement's events all carry the object as it stands after it (as for real ones).
      ['payment_detected', 'Paid'],
      ['payment_confirmed', 'Paid'],
      ['paid', 'Paid'],
      ['transaction_reverted', 'Pending'],
      ['pending', 'Pending'],
      ['underpaid', 'Underpaid'],
      ['payment_detected', 'Paid'],
      ['payment_confirmed', 'Paid'],
      ['paid', 'Paid'],
    ];
    const delivered = () =>
      receiver.received
        .map((webhook) => JSON.parse(webhook.body) as Delivered)
        .filter((event) => event.data.object.id === session.id);
    await waitFor(async () => delivered().length >= expected.length, 60_000, 'every webhook');
    const inSequence = delivered().sort((a, b) => a.sequence - b.sequence);
    expect(inSequence.map((event) => event.sequence)).toEqual(
      expected.map((_, index) => index + 1),
    );
    expect(
      inSequence.map((event) => [
        event.type.replace('checkout.session.', ''),
        event.data.object.status,
      ]),
    ).toEqual(expected);
    expect(new Decimal(inSequence.at(-1)!.data.object.amount_received).equals(session.amount)).toBe(
      true,
    );
  });
});
