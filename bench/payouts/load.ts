import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import Decimal from 'decimal.js';
import { getAddress, hexlify } from 'ethers';
import type { Client } from 'pg';
import { timestamp } from '../kit/clock';
import type { Merchant } from '../kit/database';
import type { HeadTracker } from '../kit/heads';
import type { Api } from '../kit/services';

/*
 * The merchants' side: payouts created as fast as the API takes them, `concurrency` requests in
 * flight on kept-alive connections, one payout a request (POST /v1/payouts) or up to `batchSize`
 * of one merchant's (POST /v1/payout-batches); each request with its own Idempotency-Key and
 * fresh recipients, and its times noted.
 */

export type Creation = 'single' | 'batches';

export interface PayoutItem {
  merchant: Merchant;
  toAddress: string;
  /** Decimal string, e.g. "12.5". */
  amount: string;
}

export interface RequestRecord {
  merchantId: string;
  /** Payouts asked for: 1, or the batch's items; and their sum. */
  items: number;
  amount: string;
  /** Epoch ms, when the request was sent and when its answer was read. */
  startedAt: number;
  endedAt: number;
  /** The head block when the request was sent. */
  headAtStart: number;
  status: number;
  /** The payout it created, or the batch's payouts (read by batch_id once all are answered). */
  payoutIds: string[];
  batchId?: string;
  error: string | null;
}

// A request unanswered this long counts as an error (and the phase goes on without it).
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The merchants' payouts in turn (every merchant's arrive at the same rate, interleaved), fresh
 * recipients, amounts from 4.00 to 49.99: above ETHEREUM's default payout fee of 3, so every net
 * amount is positive, and in cents so the token amounts on chain are exercised.
 */
export function payoutItems(count: number, merchants: Merchant[]): PayoutItem[] {
  return Array.from({ length: count }, (_, index) => ({
    merchant: merchants[index % merchants.length],
    toAddress: getAddress(hexlify(randomBytes(20))),
    amount: `${randomInt(4, 50)}.${String(randomInt(0, 100)).padStart(2, '0')}`,
  }));
}

export function totalAmount(items: PayoutItem[]): Decimal {
  return items.reduce((sum, item) => sum.plus(item.amount), new Decimal(0));
}

/** One request per payout, or each merchant's payouts in batches, the merchants' in turn. */
function requestsOf(items: PayoutItem[], creation: Creation, batchSize: number): PayoutItem[][] {
  if (creation === 'single') return items.map((item) => [item]);
  const chunks = [...new Set(items.map((item) => item.merchant))].map((merchant) => {
    const own = items.filter((item) => item.merchant === merchant);
    return Array.from({ length: Math.ceil(own.length / batchSize) }, (_, index) =>
      own.slice(index * batchSize, (index + 1) * batchSize),
    );
  });
  const rounds = Math.max(...chunks.map((own) => own.length));
  // Round by round, each merchant's next batch: the merchants' batches interleaved.
  return Array.from({ length: rounds }, (_, round) =>
    chunks.flatMap((own) => own.slice(round, round + 1)),
  ).flat();
}

export async function createPayouts(
  context: { api: Api; db: Client; head: HeadTracker },
  items: PayoutItem[],
  options: { creation: Creation; batchSize: number; concurrency: number },
): Promise<RequestRecord[]> {
  const requests = requestsOf(items, options.creation, options.batchSize);
  // One kept-alive connection per client loop, like autocannon's connections. node:http rather
  // than fetch: it costs the benchmark less CPU, and the benchmark shares the cores it measures.
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const records: RequestRecord[] = new Array(requests.length);
  let next = 0;
  const client = async () => {
    while (next < requests.length) {
      const index = next++;
      records[index] = await send(context, agent, requests[index], options.creation);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(options.concurrency, requests.length) }, client),
    );
  } finally {
    agent.destroy();
  }
  const batches = records.filter((record) => record.batchId);
  if (batches.length) {
    const { rows } = await context.db.query<{ batch_id: string; ids: string[] }>(
      `SELECT batch_id, array_agg(id::text) AS ids FROM payouts WHERE batch_id = ANY($1) GROUP BY batch_id`,
      [batches.map((record) => record.batchId)],
    );
    const byBatch = new Map(rows.map((row) => [row.batch_id, row.ids]));
    for (const record of batches) record.payoutIds = byBatch.get(record.batchId as string) ?? [];
  }
  return records;
}

async function send(
  context: { api: Api; head: HeadTracker },
  agent: Agent,
  items: PayoutItem[],
  creation: Creation,
): Promise<RequestRecord> {
  const bodies = items.map((item) => ({
    amount: item.amount,
    currency: 'USDT',
    network: 'ETHEREUM',
    to_address: item.toAddress,
  }));
  const record: RequestRecord = {
    merchantId: items[0].merchant.id,
    items: items.length,
    amount: totalAmount(items).toFixed(),
    startedAt: timestamp(),
    endedAt: 0,
    headAtStart: context.head.head(),
    status: 0,
    payoutIds: [],
    error: null,
  };
  try {
    const response = await post(
      `${context.api.url}${creation === 'single' ? '/v1/payouts' : '/v1/payout-batches'}`,
      agent,
      { authorization: `Bearer ${items[0].merchant.apiKey}`, 'idempotency-key': randomUUID() },
      creation === 'single' ? bodies[0] : { items: bodies },
    );
    record.status = response.status;
    const id = (JSON.parse(response.body) as { id?: unknown }).id;
    if (response.status !== 201 || typeof id !== 'string')
      record.error = response.body.slice(0, 300);
    else if (creation === 'single') record.payoutIds = [id];
    else record.batchId = id;
  } catch (caught) {
    record.error = caught instanceof Error ? caught.message : String(caught);
  }
  record.endedAt = timestamp();
  return record;
}

/** A JSON POST; resolves with the status and the body as text, rejects on a socket error. */
function post(
  url: string,
  agent: Agent,
  headers: Record<string, string>,
  json: unknown,
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
