import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { QueryRunner } from 'typeorm';
import { MerchantsService } from '@app/auth';
import { EventWriter } from '@app/events';
import { PayoutReviews } from '@app/payouts';
import { completeBatchIfFinished } from '@app/payouts/batches/payout-batch-completion';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  cleanUpPayouts,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

const BATCHES = '/v1/payout-batches';
const helper = (id: string, action: string) => `/v1/test-helpers/payouts/${id}/${action}`;

type Item = Record<string, unknown>;
interface EventRow {
  id: string;
  type: string;
  object_id: string;
  previous_status: string | null;
  object: Record<string, unknown>;
}

/*
 * A batch after its creation: its statement item by item (one `payout` balance transaction per
 * payout, as the events show them), `batch_id` on its payouts, and its own events
 * (`payout_batch.created`, `payout_batch.completed` exactly once, also when the last two items
 * finish at the same time). The refusal of the service's own addresses (one query for them all).
 */
describe('Payout batches: statement, batch_id and payout_batch events', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  const tron = (amount: string): Item => ({
    amount,
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
  });
  const evm = (amount: string): Item => ({
    amount,
    currency: 'USDT',
    network: 'ETHEREUM',
    to_address: randomEvmAddress(),
  });
  const postBatch = (items: Item[]) =>
    api.post(BATCHES, merchant, { items }, { 'Idempotency-Key': randomUUID() });
  const payoutIdsOf = async (batchId: string): Promise<string[]> =>
    (
      await api.dataSource.query(`SELECT id FROM payouts WHERE batch_id = $1 ORDER BY id`, [
        batchId,
      ])
    ).map((row: { id: string }) => row.id);
  const eventsOf = (objectIds: string[]): Promise<EventRow[]> =>
    api.dataSource.query(
      `SELECT id, type, object_id, previous_status, data->'object' AS object FROM events
        WHERE object_id = ANY($1) ORDER BY object_id, sequence`,
      [objectIds],
    );

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Batch lifecycle' });
    // No review of new destinations: the batches' payouts go straight to sending.
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', false);
    for (const network of ['TRON', 'ETHEREUM']) {
      await creditBalance(api.dataSource, {
        merchantId: merchant.id,
        network,
        currency: 'USDT',
        amount: '5000',
      });
    }
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it('lists each payout of a batch on the statement as its payout.created event shows it', async () => {
    const before = {
      TRON: await balanceOf(api, merchant, 'TRON', 'USDT'),
      ETHEREUM: await balanceOf(api, merchant, 'ETHEREUM', 'USDT'),
    };
    const started = new Date(Date.now() - 1000).toISOString();
    const items = [tron('10.5'), tron('20.000001'), tron('30'), evm('12.25'), evm('7')];
    const batch = (await postBatch(items).expect(201)).body;
    const ids = await payoutIdsOf(batch.id);
    expect(ids).toHaveLength(items.length);

    const created = (await eventsOf(ids)).filter((event) => event.type === 'payout.created');
    expect(created).toHaveLength(items.length);
    const statement = (
      await api
        .get(
          `/v1/balance-transactions?type=payout&created_after=${encodeURIComponent(started)}&page_size=100`,
          merchant,
        )
        .expect(200)
    ).body as Array<Record<string, string>>;
    // One row per payout, named by the payout (not the batch), for the amount its event shows.
    expect(statement).toHaveLength(items.length);
    expect(statement.map((row) => row.source_id).sort()).toEqual([...ids].sort());
    for (const event of created) {
      const row = statement.find((txn) => txn.source_id === event.object_id)!;
      expect(row).toMatchObject({
        type: 'payout',
        currency: event.object.currency,
        network: event.object.network,
        fee: '0',
      });
      expect(new Decimal(row.amount).negated().toFixed()).toBe(event.object.amount);
      expect(row.net).toBe(row.amount);
    }
    // Per token, the rows add up to the balance's change, and the newest is the balance now.
    for (const network of ['TRON', 'ETHEREUM'] as const) {
      const rows = statement.filter((row) => row.network === network);
      const sum = rows.reduce((total, row) => total.plus(row.net), new Decimal(0));
      const after = await balanceOf(api, merchant, network, 'USDT');
      expect(new Decimal(after!.available).minus(before[network]!.available).toFixed()).toBe(
        sum.toFixed(),
      );
      expect(rows[0].balance_after).toBe(after!.available);
    }
  });

  it('shows batch_id on a batch payout (API and events), null on a single payout', async () => {
    const batch = (await postBatch([tron('11'), tron('12')]).expect(201)).body;
    const [first] = await payoutIdsOf(batch.id);
    const shown = (await api.get(`${PAYOUTS}/${first}`, merchant).expect(200)).body;
    expect(shown.batch_id).toBe(batch.id);
    const listed = (await api.get(`${PAYOUTS}?batch_id=${batch.id}`, merchant).expect(200)).body;
    expect(listed.map((payout: { batch_id: string }) => payout.batch_id)).toEqual([
      batch.id,
      batch.id,
    ]);
    const [event] = await eventsOf([first]);
    expect(event.object.batch_id).toBe(batch.id);

    const single = (await postPayout(api, merchant, tron('13')).expect(201)).body;
    expect(single.batch_id).toBeNull();
    const [singleEvent] = await eventsOf([single.id]);
    expect(singleEvent.object).toHaveProperty('batch_id', null);
  });

  it('sends payout_batch.created with the batch, and payout_batch.completed once when the last item is final', async () => {
    const batch = (await postBatch([tron('14'), tron('15'), tron('16')]).expect(201)).body;
    expect(batch.finished_at).toBeNull();
    const [createdEvent] = await eventsOf([batch.id]);
    expect(createdEvent).toMatchObject({
      type: 'payout_batch.created',
      previous_status: null,
      object: batch,
    });

    const [a, b, c] = await payoutIdsOf(batch.id);
    await api.post(helper(a, 'complete'), merchant, {}).expect(200);
    await api.post(helper(b, 'fail'), merchant, { reason: 'test' }).expect(200);
    expect((await eventsOf([batch.id])).map((event) => event.type)).toEqual([
      'payout_batch.created',
    ]);
    // The last one by an operator's rejection (the review path).
    await api.app.get(PayoutReviews).reject(c, 'test-suite', 'not this one');

    const events = await eventsOf([batch.id]);
    expect(events.map((event) => event.type)).toEqual([
      'payout_batch.created',
      'payout_batch.completed',
    ]);
    const shown = (await api.get(`${BATCHES}/${batch.id}`, merchant).expect(200)).body;
    expect(shown).toMatchObject({
      status: 'Finished',
      counts: { Pending: 0, Processing: 0, Completed: 1, Failed: 1, Rejected: 1 },
      finished_at: expect.any(String),
    });
    expect(events[1]).toMatchObject({ previous_status: 'Processing', object: shown });
    // Webhook endpoints may subscribe to the new types.
    const endpoint = await api
      .post('/v1/webhook-endpoints', merchant, {
        url: 'https://8.8.8.8/hooks/batches',
        events: ['payout_batch.created', 'payout_batch.completed'],
      })
      .expect(201);
    expect(endpoint.body.events).toEqual(['payout_batch.created', 'payout_batch.completed']);
  });

  it('completes a batch exactly once when its last two items finish at the same time', async () => {
    // Over HTTP the two changes rarely overlap; here they do, every time: the first item's
    // transaction is still open while the second one's asks whether the batch is finished.
    const batch = (await postBatch([tron('1.5'), tron('2.5')]).expect(201)).body;
    const [a, b] = await payoutIdsOf(batch.id);
    const writer = api.app.get(EventWriter);
    const first = api.dataSource.createQueryRunner();
    const second = api.dataSource.createQueryRunner();
    await first.startTransaction();
    await second.startTransaction();
    try {
      const finish = async (runner: QueryRunner, id: string) => {
        await runner.query(`UPDATE payouts SET status = 'Failed' WHERE id = $1`, [id]);
        return completeBatchIfFinished(
          runner.manager,
          writer,
          { batch_id: batch.id, status: 'Failed' },
          'Pending',
        );
      };
      // The other item is open (as far as this transaction can tell): not finished yet.
      expect(await finish(first, a)).toBe(false);
      let settled = false;
      const secondDone = finish(second, b).finally(() => (settled = true));
      const secondPid = (await second.query(`SELECT pg_backend_pid() AS pid`))[0].pid;
      // Wait until the second one waits for the batch's lock (or, without it, has answered).
      const deadline = Date.now() + 10_000;
      while (!settled && Date.now() < deadline) {
        const waiting = await api.dataSource.query(
          `SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted`,
          [secondPid],
        );
        if (waiting.length) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.commitTransaction();
      // It sees the first item's change once it holds the lock: the batch is finished.
      expect(await secondDone).toBe(true);
      await second.commitTransaction();
    } finally {
      if (first.isTransactionActive) await first.rollbackTransaction();
      if (second.isTransactionActive) await second.rollbackTransaction();
      await first.release();
      await second.release();
    }
    expect((await eventsOf([batch.id])).map((event) => event.type)).toEqual([
      'payout_batch.created',
      'payout_batch.completed',
    ]);
    // A later call (a retried job) sends nothing more.
    await api.dataSource.transaction((manager) =>
      completeBatchIfFinished(manager, writer, { batch_id: batch.id, status: 'Failed' }, 'Pending'),
    );
    expect(await api.count('events', 'object_id = $1', [batch.id])).toBe(2);
  });

  it("refuses the service's own addresses item by item, with one lookup for all", async () => {
    const { body: session } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    const response = await postBatch([
      tron('10'),
      { ...tron('10'), to_address: session.pay_address },
      tron('10'),
    ]).expect(422);
    expect(response.body.error.errors).toEqual([
      {
        index: 1,
        param: 'to_address',
        code: 'invalid_address',
        message: "to_address belongs to this service (a hot wallet or a customer's pay address).",
      },
    ]);
  });
});
