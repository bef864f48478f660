import type { INestApplicationContext } from '@nestjs/common';
import Decimal from 'decimal.js';
import { concat, encodeBase58, randomBytes, sha256 } from 'ethers';
import { PaymentsClient, Schema, WebhookEvent } from '@stablecoin-payments/sdk';
import { startLiveApi } from '../support/live-api';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';
import { startWebhookWorker } from '../support/webhook-worker';
import { VerifyingReceiver } from './verifying-receiver';

type Session = Schema<'CheckoutSession'>;
type Payout = Schema<'Payout'>;
type BalanceTransaction = Schema<'BalanceTransaction'>;

const NETWORK = 'TRON' as const;
const CURRENCY = 'USDT' as const;
const BATCH_SIZE = 500;
/** Items whose payout the walk fails (the rest complete). */
const FAILED_ITEMS = new Set([7, 123, 250, 377, 499]);
const HELPER_CONCURRENCY = 8;

/** A fresh TRON address (base58check of 0x41 + 20 bytes), as any wallet library makes one. */
function tronAddress(): string {
  const payload = concat(['0x41', randomBytes(20)]);
  const checksum = sha256(sha256(payload)).slice(0, 10);
  return encodeBase58(concat([payload, checksum]));
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: limit }, lane));
}

const sum = (values: string[]) =>
  values.reduce((total, value) => total.plus(value), new Decimal(0));
const same = (a: string, b: string | Decimal) => new Decimal(a).equals(b);
const norm = (value: string) => new Decimal(value).toFixed();

/** RFC 4180 records of a CSV without quoted line breaks (none of the statement's fields has one). */
function parseCsv(text: string): string[][] {
  const records = text.split('\r\n').filter((line) => line.length > 0);
  return records.map((line) => {
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    for (let index = 0; index < line.length; index++) {
      const char = line[index];
      if (quoted && char === '"' && line[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') {
        quoted = !quoted;
      } else if (char === ',' && !quoted) {
        fields.push(field);
        field = '';
      } else {
        field += char;
      }
    }
    fields.push(field);
    return fields;
  });
}

/*
 * Issue 26's first Done-when: an integrator walks the sandbox with only the SDK and what README.md
 * ("Try it") and docs/sandbox.md say. The harness starts the service (the API on a loopback
 * port, the worker's webhook delivery) and makes the merchant's sk_test_ key, as `npm run demo`
 * does; everything after that is the integrator's side: SDK calls, and a webhook endpoint that
 * verifies every delivery with the SDK's helper. No repository code, no SQL.
 */
describe('An integrator walks the sandbox with the SDK', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: VerifyingReceiver;
  let payments: PaymentsClient;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    // Read when the apps start: a local http receiver, and deliveries picked up quickly.
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    const live = await startLiveApi();
    api = live.api;
    worker = await startWebhookWorker();
    const merchant = await api.createMerchant({ name: 'Sandbox walker' });
    receiver = await VerifyingReceiver.start();
    payments = new PaymentsClient({ apiKey: merchant.apiKey, baseUrl: live.url });
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    restoreEnvironment?.();
  });

  /** Waits until the object's verified events are `types`, in `sequence` order 1..n. */
  async function eventsOf(objectId: string, types: string[]): Promise<WebhookEvent[]> {
    await waitFor(
      async () => receiver.eventsOf(objectId).length >= types.length,
      60_000,
      `${types.length} events of ${objectId}`,
    );
    const events = receiver.eventsOf(objectId);
    expect(events.map((event) => event.type)).toEqual(types);
    expect(events.map((event) => event.sequence)).toEqual(types.map((_, index) => index + 1));
    return events;
  }

  const simulatePayment = (session: Session, amount: string) =>
    payments.post('/v1/test-helpers/checkout/sessions/{id}/payments', {
      params: { path: { id: session.id } },
      body: { amount },
    });

  it('simulates every case, pays out a batch of 500 and reads a statement equal to the events', async () => {
    // 1. A webhook endpoint for every event type.
    const endpoint = await payments.post('/v1/webhook-endpoints', {
      body: { url: receiver.url, description: 'integrator walk' },
    });
    receiver.useSecret(endpoint.secret);

    // 2. A session of 100 USDT: underpaid (40), topped up (60), the top-up reorged, paid again.
    const session = await payments.post('/v1/checkout/sessions', {
      body: {
        pricing_amount: '100',
        pricing_currency: 'USD',
        currency: CURRENCY,
        network: NETWORK,
        client_reference_id: 'walk-order-1',
      },
    });
    expect(session.status).toBe('Pending');
    expect(session.amount).toBe('100');

    const underpaid = await simulatePayment(session, '40');
    expect(underpaid.status).toBe('Pending');
    expect(underpaid.amount_received).toBe('40');
    const detected = ['checkout.session.payment_detected', 'checkout.session.payment_confirmed'];
    await eventsOf(session.id, detected);

    const topUp = await simulatePayment(session, '60');
    expect(topUp.status).toBe('Paid');
    expect(topUp.amount_received).toBe('100');
    await eventsOf(session.id, [...detected, ...detected, 'checkout.session.paid']);

    const reorged = await payments.post('/v1/test-helpers/checkout/sessions/{id}/reorg', {
      params: { path: { id: session.id } },
    });
    expect(reorged.status).toBe('Pending');
    expect(reorged.amount_received).toBe('40');
    const afterReorg = [
      ...detected,
      ...detected,
      'checkout.session.paid',
      'checkout.session.transaction_reverted',
      'checkout.session.pending',
    ];
    await eventsOf(session.id, afterReorg);

    const repaid = await simulatePayment(session, '60');
    expect(repaid.status).toBe('Paid');
    const sessionEvents = await eventsOf(session.id, [
      ...afterReorg,
      ...detected,
      'checkout.session.paid',
    ]);
    const reverted = sessionEvents.find(
      (event) => event.type === 'checkout.session.transaction_reverted',
    )!;
    expect(reverted.previous_status).toBe('Confirmed');
    expect(reverted.data.transaction).toMatchObject({ amount: '60', status: 'Reverted' });
    expect(sessionEvents.at(-1)!.previous_status).toBe('Pending');

    // 3. A session of 1,000 USDT expired by the helper, then paid: a late payment.
    const late = await payments.post('/v1/checkout/sessions', {
      body: {
        pricing_amount: '1000',
        pricing_currency: 'USD',
        currency: CURRENCY,
        network: NETWORK,
        client_reference_id: 'walk-order-2',
      },
    });
    const expired = await payments.post('/v1/test-helpers/checkout/sessions/{id}/expire', {
      params: { path: { id: late.id } },
    });
    expect(expired.status).toBe('Expired');
    await eventsOf(late.id, ['checkout.session.expired']);
    const latePaid = await simulatePayment(late, '1000');
    expect(latePaid.status).toBe('Paid');
    const lateEvents = await eventsOf(late.id, [
      'checkout.session.expired',
      ...detected,
      'checkout.session.paid',
    ]);
    expect(lateEvents.at(-1)!.previous_status).toBe('Expired');

    // 4. A batch of 500 payouts funded by the simulated balance; most completed, a few failed.
    const items = Array.from({ length: BATCH_SIZE }, (_, index) => ({
      amount: new Decimal('1.5').plus(new Decimal(index).div(1000)).toFixed(),
      currency: CURRENCY,
      network: NETWORK,
      to_address: tronAddress(),
      description: `Seller payout ${index}`,
      metadata: JSON.stringify({ item: index }),
    }));
    // The SDK sends the Idempotency-Key this route requires (a fresh one, reused by its retries).
    const batch = await payments.post('/v1/payout-batches', { body: { items } });
    expect(batch.item_count).toBe(BATCH_SIZE);

    const payouts: Payout[] = [];
    for await (const payout of payments.list('/v1/payouts', {
      params: { query: { batch_id: batch.id, page_size: 100 } },
    })) {
      payouts.push(payout);
    }
    expect(payouts).toHaveLength(BATCH_SIZE);
    const itemOf = (payout: Payout) => (JSON.parse(payout.metadata!) as { item: number }).item;
    expect(new Set(payouts.map(itemOf)).size).toBe(BATCH_SIZE);
    for (const payout of payouts) {
      const item = items[itemOf(payout)];
      expect(payout).toMatchObject({
        status: 'Pending',
        batch_id: batch.id,
        amount: item.amount,
        to_address: item.to_address,
        description: item.description,
      });
    }

    await inParallel(payouts, HELPER_CONCURRENCY, async (payout) => {
      const ended = FAILED_ITEMS.has(itemOf(payout))
        ? await payments.post('/v1/test-helpers/payouts/{id}/fail', {
            params: { path: { id: payout.id } },
            body: { reason: 'walk: recipient refused' },
          })
        : await payments.post('/v1/test-helpers/payouts/{id}/complete', {
            params: { path: { id: payout.id } },
          });
      expect(ended.status).toBe(FAILED_ITEMS.has(itemOf(payout)) ? 'Failed' : 'Completed');
    });

    const finished = await payments.get('/v1/payout-batches/{id}', {
      params: { path: { id: batch.id } },
    });
    expect(finished.status).toBe('Finished');
    expect(finished.counts).toMatchObject({
      Completed: BATCH_SIZE - FAILED_ITEMS.size,
      Failed: FAILED_ITEMS.size,
    });

    const payoutEvents = new Map<string, WebhookEvent[]>();
    for (const payout of payouts) {
      const ending = FAILED_ITEMS.has(itemOf(payout)) ? 'payout.failed' : 'payout.completed';
      payoutEvents.set(payout.id, await eventsOf(payout.id, ['payout.created', ending]));
    }

    // The batch announces itself once created and once every item has ended.
    await eventsOf(batch.id, ['payout_batch.created', 'payout_batch.completed']);

    // 5. Every event the API has for this merchant arrived, verified, exactly once kept.
    const allEvents: string[] = [];
    for await (const event of payments.list('/v1/events', {
      params: { query: { page_size: 100 } },
    })) {
      allEvents.push(event.id);
    }
    expect(new Set(receiver.events.map((event) => event.id))).toEqual(new Set(allEvents));
    expect(receiver.refused).toEqual([]);

    // 6. The statement, through the pagination helper, oldest first.
    const statement: BalanceTransaction[] = [];
    for await (const row of payments.list('/v1/balance-transactions', {
      params: { query: { page_size: 100 } },
    })) {
      statement.push(row);
    }
    statement.reverse();
    expect(statement.every((row) => row.currency === CURRENCY && row.network === NETWORK)).toBe(
      true,
    );

    // Payments: one row per confirmed change of a session, equal to the events' amounts.
    for (const [events, sessionId] of [
      [sessionEvents, session.id],
      [lateEvents, late.id],
    ] as const) {
      const expected = expectedPaymentRows(events);
      const rows = statement.filter((row) => row.source_id === sessionId);
      expect(rows.map((row) => [row.type, norm(row.amount), norm(row.fee), norm(row.net)])).toEqual(
        expected.map((row) => [row.type, row.amount, row.fee, row.net]),
      );
    }
    // The reversal is the reverted transfer.
    const reversal = statement.find((row) => row.type === 'payment_reversal')!;
    expect(reversal.source_id).toBe(session.id);
    expect(same(reversal.amount, new Decimal(reverted.data.transaction!.amount).negated())).toBe(
      true,
    );

    // Payouts: one row per payout of the batch, for the amount of its payout.created event.
    const payoutRows = statement.filter((row) => row.type === 'payout');
    expect(payoutRows.map((row) => row.source_id).sort()).toEqual(
      payouts.map((payout) => payout.id).sort(),
    );
    for (const row of payoutRows) {
      const created = payoutEvents.get(row.source_id!)![0];
      expect(same(row.amount, new Decimal((created.data.object as Payout).amount).negated())).toBe(
        true,
      );
      expect(same(row.fee, '0')).toBe(true);
      expect(same(row.net, row.amount)).toBe(true);
    }
    // Each failed payout gave its amount back; a completed one adds no row.
    const releases = statement.filter((row) => row.type === 'payout_release');
    const failed = payouts.filter((payout) => FAILED_ITEMS.has(itemOf(payout)));
    expect(releases.map((row) => row.source_id).sort()).toEqual(
      failed.map((payout) => payout.id).sort(),
    );
    for (const row of releases) {
      const failedEvent = payoutEvents.get(row.source_id!)![1];
      expect(same(row.amount, (failedEvent.data.object as Payout).amount)).toBe(true);
    }
    expect(statement).toHaveLength(4 + 1 + BATCH_SIZE + FAILED_ITEMS.size);

    // The rows add up to the balance, and each balance_after runs from the one before.
    let running = new Decimal(0);
    for (const row of statement) {
      expect(same(row.amount, new Decimal(row.fee).plus(row.net))).toBe(true);
      running = running.plus(row.net);
      expect(same(row.balance_after, running)).toBe(true);
    }
    const balances = await payments.get('/v1/balances');
    const balance = balances.find(
      (entry) =>
        entry.currency === CURRENCY && entry.network === NETWORK && !entry.sub_merchant_code,
    )!;
    expect(same(balance.available, running)).toBe(true);
    expect(same(balance.held, '0')).toBe(true);
    expect(same(statement.at(-1)!.balance_after, balance.available)).toBe(true);
    // What the walk moved: the sessions' nets, less what the completed payouts took.
    const completed = payouts.filter((payout) => !FAILED_ITEMS.has(itemOf(payout)));
    const expectedBalance = new Decimal(repaid.net_amount)
      .plus(latePaid.net_amount)
      .minus(sum(completed.map((payout) => payout.amount)));
    expect(same(balance.available, expectedBalance)).toBe(true);

    // 7. The same statement as CSV: the same rows, the same values.
    const csv = await payments.raw.GET('/v1/balance-transactions', {
      headers: { Accept: 'text/csv' },
      parseAs: 'text',
    });
    expect(csv.response.status).toBe(200);
    expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...records] = parseCsv(csv.data!);
    const jsonFields = Object.keys(statement[0]);
    expect(header).toEqual(jsonFields);
    const newestFirst = [...statement].reverse();
    expect(records).toEqual(
      newestFirst.map((row) =>
        header.map((field) => {
          const value = (row as Record<string, unknown>)[field];
          return value === null ? '' : String(value);
        }),
      ),
    );
  }, 600_000);
});

interface ExpectedRow {
  type: 'payment' | 'payment_reversal';
  amount: string;
  fee: string;
  net: string;
}

/**
 * The statement rows a session's events announce: each confirmation or reversal of a confirmed
 * transfer changes the session's confirmed total by the transfer's amount, and the fee and net by
 * what the session's object shows changed since the previous such event.
 */
function expectedPaymentRows(events: WebhookEvent[]): ExpectedRow[] {
  const rows: ExpectedRow[] = [];
  let fee = new Decimal(0);
  let net = new Decimal(0);
  for (const event of events) {
    const confirmed = event.type === 'checkout.session.payment_confirmed';
    const reversed =
      event.type === 'checkout.session.transaction_reverted' &&
      event.previous_status === 'Confirmed';
    if (!confirmed && !reversed) continue;
    const object = event.data.object as Session;
    const transfer = new Decimal(event.data.transaction!.amount);
    const amount = confirmed ? transfer : transfer.negated();
    const feeChange = new Decimal(object.fee_amount).minus(fee);
    const netChange = new Decimal(object.net_amount).minus(net);
    fee = new Decimal(object.fee_amount);
    net = new Decimal(object.net_amount);
    expect(amount.equals(feeChange.plus(netChange))).toBe(true);
    rows.push({
      type: confirmed ? 'payment' : 'payment_reversal',
      amount: amount.toFixed(),
      fee: feeChange.toFixed(),
      net: netChange.toFixed(),
    });
  }
  return rows;
}
