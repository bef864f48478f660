import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { getAddress, hexlify } from 'ethers';
import { timestamp } from '../kit/clock';
import type { Api } from '../kit/services';

/* The merchant's side: one POST /v1/payout-batches of `items` payouts, timed end to end. */

export interface BatchItem {
  amount: string;
  currency: 'USDT';
  network: 'ETHEREUM';
  to_address: string;
  description: string;
  metadata: string;
}

export interface BatchRun {
  batchId: string | null;
  status: number;
  items: number;
  bodyBytes: number;
  /** From the first byte sent to the last byte of the answer read. */
  ms: number;
  amount: string;
  error: string | null;
}

/** Amounts 4.00 to 49.99 (above ETHEREUM's fee of 3), fresh recipients, realistic references. */
export function batchItems(count: number): BatchItem[] {
  return Array.from({ length: count }, (_, index) => ({
    amount: new Decimal(randomInt(400, 5000)).dividedBy(100).toFixed(2),
    currency: 'USDT',
    network: 'ETHEREUM',
    to_address: getAddress(hexlify(randomBytes(20))),
    description: `Seller payout #${100000 + index}`,
    metadata: JSON.stringify({ seller_id: `s_${randomInt(1e9)}`, order: randomUUID() }),
  }));
}

export async function postBatch(api: Api, apiKey: string, items: BatchItem[]): Promise<BatchRun> {
  const body = JSON.stringify({ items });
  const amount = items.reduce((sum, item) => sum.plus(item.amount), new Decimal(0)).toFixed();
  const startedAt = timestamp();
  const response = await fetch(`${api.url}/v1/payout-batches`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body,
  });
  const answer = (await response.json()) as { id?: string; error?: { message: string } };
  return {
    batchId: answer.id ?? null,
    status: response.status,
    items: items.length,
    bodyBytes: Buffer.byteLength(body),
    ms: Math.round(timestamp() - startedAt),
    amount,
    error: answer.error?.message ?? null,
  };
}
