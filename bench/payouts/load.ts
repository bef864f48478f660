import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import Decimal from 'decimal.js';
import { getAddress, hexlify } from 'ethers';
import { timestamp } from '../deposits/clock';
import type { HeadTracker } from './chain';
import type { Api } from './services';

/*
 * The merchants' side: POST /v1/payouts as fast as the API takes them, `concurrency` requests in
 * flight, each with its own Idempotency-Key and a fresh recipient, every request's time noted.
 */

export interface PayoutRequest {
  /** Whose payout: its merchant's id and API key. */
  merchantId: string;
  apiKey: string;
  idempotencyKey: string;
  toAddress: string;
  /** Decimal string, e.g. "12.5". */
  amount: string;
}

export interface RequestRecord extends PayoutRequest {
  /** Epoch ms, when the request was sent and when its answer was read. */
  startedAt: number;
  endedAt: number;
  /** The head block when the request was sent. */
  headAtStart: number;
  status: number;
  payoutId: string | null;
  error: string | null;
}

// A request unanswered this long counts as an error (and the phase goes on without it).
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Amounts from 4.00 to 49.99: above ETHEREUM's default payout fee of 3 (PAYOUT_NETWORK_FEES), so
 * every net amount is positive, and in cents so the token amounts on chain are exercised.
 */
export function payoutRequests(
  count: number,
  merchants: Array<{ id: string; apiKey: string }>,
): PayoutRequest[] {
  return Array.from({ length: count }, (_, index) => ({
    // Round robin: every merchant's payouts arrive at the same rate, interleaved.
    merchantId: merchants[index % merchants.length].id,
    apiKey: merchants[index % merchants.length].apiKey,
    idempotencyKey: randomUUID(),
    toAddress: getAddress(hexlify(randomBytes(20))),
    amount: `${randomInt(4, 50)}.${String(randomInt(0, 100)).padStart(2, '0')}`,
  }));
}

export function totalAmount(requests: PayoutRequest[]): Decimal {
  return requests.reduce((sum, request) => sum.plus(request.amount), new Decimal(0));
}

export async function createPayouts(
  api: Api,
  requests: PayoutRequest[],
  concurrency: number,
  head: HeadTracker,
): Promise<RequestRecord[]> {
  // One kept-alive connection per client loop, like autocannon's connections. node:http rather
  // than fetch: it costs the benchmark less CPU, and the benchmark shares the cores it measures.
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const records: RequestRecord[] = new Array(requests.length);
  let next = 0;
  const client = async () => {
    while (next < requests.length) {
      const index = next++;
      records[index] = await createOne(api, agent, requests[index], head);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, client));
  } finally {
    agent.destroy();
  }
  return records;
}

async function createOne(
  api: Api,
  agent: Agent,
  payout: PayoutRequest,
  head: HeadTracker,
): Promise<RequestRecord> {
  const startedAt = timestamp();
  const headAtStart = head.head();
  let status = 0;
  let payoutId: string | null = null;
  let error: string | null = null;
  try {
    const response = await post(`${api.url}/v1/payouts`, agent, {
      headers: {
        authorization: `Bearer ${payout.apiKey}`,
        'idempotency-key': payout.idempotencyKey,
      },
      body: {
        amount: payout.amount,
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: payout.toAddress,
      },
    });
    status = response.status;
    const body = JSON.parse(response.body) as { id?: unknown };
    if (status === 201 && typeof body.id === 'string') payoutId = body.id;
    else error = response.body.slice(0, 300);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  return { ...payout, startedAt, endedAt: timestamp(), headAtStart, status, payoutId, error };
}

/** A JSON POST; resolves with the status and the body as text, rejects on a socket error. */
function post(
  url: string,
  agent: Agent,
  input: { headers: Record<string, string>; body: unknown },
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(input.body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          ...input.headers,
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
