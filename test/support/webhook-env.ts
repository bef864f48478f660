import type { INestApplicationContext } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PayoutReviews } from '@app/payouts';
import { creditBalance } from './ledger-credit';
import { postPayout, randomTronAddress } from './payouts-api';
import { TestApi, TestMerchant } from './test-app';
import { waitFor } from './wait-for';
import { ReceivedWebhook } from './webhook-receiver';

export const ENDPOINTS = '/v1/webhook-endpoints';

/** Sets environment variables until the returned function puts the old values back. */
export function withEnvironment(values: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** The Stripe-style header checked with node:crypto alone, as docs/events-and-webhooks.md shows receivers. */
export function verifyStripeStyle(webhook: ReceivedWebhook, secret: string): boolean {
  const header = String(webhook.headers['x-signature']);
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const timestamp = parts.find(([key]) => key === 't')?.[1];
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${timestamp}.${webhook.body}`).digest();
  return parts
    .filter(([name]) => name === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Events come from real status changes: payouts created (and rejected) through the service. */
export class PayoutEventSource {
  constructor(private readonly api: TestApi) {}

  async fund(merchant: TestMerchant, subMerchantId: string | null = null): Promise<void> {
    await creditBalance(this.api.dataSource, {
      merchantId: merchant.id,
      subMerchantId,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
  }

  /** A `payout.created` event; returns the payout id. */
  async createPayout(merchant: TestMerchant, subMerchantCode?: string): Promise<string> {
    const headers: Record<string, string> = subMerchantCode
      ? { 'X-Sub-Merchant-Code': subMerchantCode }
      : {};
    const { body } = await postPayout(
      this.api,
      merchant,
      { amount: '5', currency: 'USDT', network: 'TRON', to_address: randomTronAddress() },
      headers,
    );
    if (!body.id) throw new Error(`Payout refused: ${JSON.stringify(body)}`);
    return body.id;
  }

  /** A `payout.rejected` event after the `payout.created` one. */
  async reject(payoutId: string): Promise<void> {
    await this.api.app.get(PayoutReviews).reject(payoutId, 'ops@test', 'test');
  }

  /** The id of the event of this type about this object. */
  async eventId(merchant: TestMerchant, objectId: string, type: string): Promise<string> {
    let id: string | undefined;
    await waitFor(async () => {
      const { body } = await this.api
        .get(`/v1/events?object_id=${objectId}&include_sub_merchants=true`, merchant)
        .expect(200);
      id = (body as Array<{ id: string; type: string }>).find((event) => event.type === type)?.id;
      return id !== undefined;
    }, 20_000);
    return id!;
  }
}

export async function closeQuietly(app: INestApplicationContext | undefined): Promise<void> {
  await app?.close();
}
