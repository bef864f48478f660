import { randomUUID } from 'node:crypto';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Decimal from 'decimal.js';
import { MerchantsService } from '@app/auth';
import { QUEUES } from '@app/common';
import { PayoutRules } from '@app/payouts';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  cleanUpPayouts,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
  subMerchantId,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

const BATCHES = '/v1/payout-batches';
const BATCH_ID = /^pob_[0-9A-Za-z]{22}$/;

type Item = Record<string, unknown>;

describe('Payout batches (POST /v1/payout-batches)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let poor: TestMerchant;
  let other: TestMerchant;
  let psp: TestMerchant;
  let rules: PayoutRules;

  const postBatch = (
    who: TestMerchant,
    items: unknown[],
    headers: Record<string, string> = { 'Idempotency-Key': randomUUID() },
  ) => api.post(BATCHES, who, { items }, headers);

  /** Everything a refused batch must not write, for the merchant. */
  const footprint = async (who: TestMerchant) =>
    Promise.all([
      api.count('payouts', 'merchant_id = $1', [who.id]),
      api.count('payout_batches', 'merchant_id = $1', [who.id]),
      api.count('ledger_lines', 'merchant_id = $1', [who.id]),
      api.count('events', 'merchant_id = $1', [who.id]),
      api.count('idempotency_keys', 'merchant_id = $1', [who.id]),
    ]);

  const tron = (amount: string, extra: Item = {}): Item => ({
    amount,
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
    ...extra,
  });

  beforeAll(async () => {
    api = await TestApi.start();
    rules = api.app.get(PayoutRules);
    merchant = await api.createMerchant({ name: 'Mass payouts' });
    poor = await api.createMerchant({ name: 'Short of funds' });
    other = await api.createMerchant({ name: 'Another merchant' });
    psp = await api.createMerchant({ name: 'Batch PSP', kind: 'psp' });
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', false);
    const fund = (who: TestMerchant, network: string, amount: string, sub: string | null = null) =>
      creditBalance(api.dataSource, {
        merchantId: who.id,
        subMerchantId: sub,
        network,
        currency: 'USDT',
        amount,
      });
    await fund(merchant, 'TRON', '100000.000001');
    await fund(merchant, 'ETHEREUM', '1000');
    await fund(poor, 'TRON', '100');
    await fund(poor, 'ETHEREUM', '100');
    await api.post('/v1/sub-merchants', psp, { code: 'seller-a', name: 'Seller A' }).expect(201);
    await fund(psp, 'TRON', '500');
    await fund(psp, 'TRON', '60', await subMerchantId(api, psp, 'seller-a'));
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, poor, other, psp]);
    await api.close();
  });

  it('creates 1,000 payouts with batch_id, one hold, exact balances and their events', async () => {
    // 990 on TRON with 6-digit amounts, 9 on Ethereum, one above the review threshold.
    const items: Item[] = [];
    for (let index = 0; index < 990; index++) {
      items.push(
        tron(new Decimal(10).plus(new Decimal(index).dividedBy(1000)).plus('0.000001').toFixed(), {
          description: `Seller payout #${index}`,
          metadata: JSON.stringify({ seller_id: `s_${index}` }),
        }),
      );
    }
    for (let index = 0; index < 9; index++) {
      items.push({
        amount: `${20 + index}.5`,
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      });
    }
    items.push(tron('10000.5'));
    const body = JSON.stringify({ items });
    // Above every other route's 64 kB: this route's own limit lets it in.
    expect(Buffer.byteLength(body)).toBeGreaterThan(100 * 1024);

    const response = await postBatch(merchant, items).expect(201);
    const batch = response.body;

    // Expected terms, item by item, from the rules a single payout uses.
    const expected = items.map((item) => {
      const amount = new Decimal(item.amount as string);
      const { fee, net } = rules.fee(amount, rules.feeRule(item.network as 'TRON', '0.5'));
      return { item, amount, fee, net };
    });
    const sum = (network: string, pick: (row: (typeof expected)[number]) => Decimal) =>
      expected
        .filter((row) => row.item.network === network)
        .reduce((total, row) => total.plus(pick(row)), new Decimal(0));
    const total = (network: string, count: number) => ({
      status: 'Pending',
      currency: 'USDT',
      network,
      count,
      amount: sum(network, (row) => row.amount).toFixed(),
      fee: sum(network, (row) => row.fee).toFixed(),
      net_amount: sum(network, (row) => row.net).toFixed(),
    });
    expect(batch).toEqual({
      id: expect.stringMatching(BATCH_ID),
      status: 'Pending',
      livemode: false,
      item_count: 1000,
      counts: { Pending: 1000, Processing: 0, Completed: 0, Failed: 0, Rejected: 0 },
      totals: [total('ETHEREUM', 9), total('TRON', 991)],
      sub_merchant_code: null,
      created_at: expect.any(String),
      finished_at: null,
    });

    // Every payout as a single payout would be, with the batch's id.
    const rows: Array<Record<string, string | null>> = await api.dataSource.query(
      `SELECT id, batch_id, trim_scale(amount)::text AS amount, trim_scale(fee)::text AS fee,
              trim_scale(net_amount)::text AS net_amount, network, to_address, description,
              metadata, review_reason, status
         FROM payouts WHERE batch_id = $1`,
      [batch.id],
    );
    expect(rows).toHaveLength(1000);
    const byAddress = new Map(rows.map((row) => [row.to_address, row]));
    for (const { item, amount, fee, net } of expected) {
      expect(byAddress.get(item.to_address as string)).toMatchObject({
        amount: amount.toFixed(),
        fee: fee.toFixed(),
        net_amount: net.toFixed(),
        network: item.network,
        description: (item.description as string) ?? null,
        metadata: (item.metadata as string) ?? null,
        status: 'Pending',
        batch_id: batch.id,
        review_reason: amount.greaterThan(10000) ? 'amount_above_threshold' : null,
      });
    }

    // Each payout's own hold, as a single payout's (`payout:<id>:hold`): the statement lists
    // each payout. No entry names the batch.
    const tronSum = sum('TRON', (row) => row.amount).toFixed();
    const ethSum = sum('ETHEREUM', (row) => row.amount).toFixed();
    const holds: Array<{ reference: string; amount: string }> = await api.dataSource.query(
      `SELECT e.reference, trim_scale(l.amount)::text AS amount
         FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
        WHERE e.kind = 'payout_hold' AND l.account LIKE 'merchant:%'
          AND e.reference IN (SELECT 'payout:' || id || ':hold' FROM payouts WHERE batch_id = $1)`,
      [batch.id],
    );
    expect(holds).toHaveLength(1000);
    for (const row of rows) {
      expect(holds.find((hold) => hold.reference === `payout:${row.id}:hold`)?.amount).toBe(
        row.amount,
      );
    }
    expect(await api.count('ledger_entries', `reference LIKE $1`, [`%${batch.id}%`])).toBe(0);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
      available: new Decimal('100000.000001').minus(tronSum).toFixed(),
      held: tronSum,
    });
    expect(await balanceOf(api, merchant, 'ETHEREUM', 'USDT')).toEqual({
      available: new Decimal(1000).minus(ethSum).toFixed(),
      held: ethSum,
    });

    // A payout.created event each, carrying the payout as the API shows it (with its batch).
    const events: Array<{ type: string; object: { id: string; pending_reason: string | null } }> =
      await api.dataSource.query(
        `SELECT type, data->'object' AS object FROM events
          WHERE object_id IN (SELECT id FROM payouts WHERE batch_id = $1)`,
        [batch.id],
      );
    expect(events).toHaveLength(1000);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['payout.created']));
    const reviewed = events.find((event) => event.object.pending_reason !== null)!;
    expect(
      events.every((event) => (event.object as { batch_id?: string }).batch_id === batch.id),
    ).toBe(true);
    expect(reviewed.object.pending_reason).toBe('review_amount_above_threshold');

    // Send jobs for the payouts no review holds back, none for the reviewed one.
    const queue = api.app.get<Queue>(getQueueToken(QUEUES.payouts));
    const sendable = rows.find((row) => row.review_reason === null)!;
    expect(await queue.getJob(sendable.id!)).not.toBeNull();
    expect(await queue.getJob(reviewed.object.id)).toBeNull();

    // Read back: the batch, its payouts in the payouts list, the batch in the batches list.
    expect((await api.get(`${BATCHES}/${batch.id}`, merchant).expect(200)).body).toEqual(batch);
    const listed = await api
      .get(`${PAYOUTS}?batch_id=${batch.id}&page_size=10&include_total=true`, merchant)
      .expect(200);
    expect(listed.headers['x-total-count']).toBe('1000');
    expect(listed.body).toHaveLength(10);
    for (const payout of listed.body as Array<{ id: string }>) {
      expect(byAddress.get((payout as { to_address?: string }).to_address!)?.id).toBe(payout.id);
    }
    const batches = await api.get(BATCHES, merchant).expect(200);
    expect(batches.body).toEqual([batch]);

    // A rejected payout shows in the batch's counts and totals.
    await api.dataSource.query(`UPDATE payouts SET status = 'Rejected' WHERE id = $1`, [
      reviewed.object.id,
    ]);
    const after = (await api.get(`${BATCHES}/${batch.id}`, merchant).expect(200)).body;
    expect(after.status).toBe('Processing');
    expect(after.counts).toEqual({
      Pending: 999,
      Processing: 0,
      Completed: 0,
      Failed: 0,
      Rejected: 1,
    });
    expect(after.totals).toContainEqual({
      status: 'Rejected',
      currency: 'USDT',
      network: 'TRON',
      count: 1,
      amount: '10000.5',
      fee: new Decimal('10000.5').times('0.005').plus(1).toFixed(),
      net_amount: new Decimal('10000.5')
        .minus(new Decimal('10000.5').times('0.005').plus(1))
        .toFixed(),
    });
    // Back, so that the suite's clean-up releases its funds as it does for every payout.
    await api.dataSource.query(`UPDATE payouts SET status = 'Pending' WHERE id = $1`, [
      reviewed.object.id,
    ]);
  });

  it('lists every bad item with its index and field, and writes nothing', async () => {
    const before = await footprint(merchant);
    const response = await postBatch(merchant, [
      tron('12'),
      tron('twelve'),
      tron('12'),
      { amount: '12', currency: 'USDT', to_address: randomTronAddress() },
      tron('12', { to_address: 'TNotAnAddress' }),
      tron('12', { memo: 'x' }),
      tron('1'),
      'not an object',
      tron('12', { to_address: '0x0000000000000000000000000000000000000001', network: 'BSC' }),
      tron('12', { currency: 'EUR' }),
    ]).expect(422);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'batch_items_invalid',
      param: 'items',
    });
    expect(response.body.error.errors).toEqual([
      {
        index: 1,
        param: 'amount',
        code: 'parameter_invalid',
        message: expect.stringContaining('amount'),
      },
      { index: 3, param: 'network', code: 'parameter_missing', message: 'network is required.' },
      {
        index: 4,
        param: 'to_address',
        code: 'invalid_address',
        message: 'to_address is not a TRON address (base58check, starting with T).',
      },
      { index: 5, param: 'memo', code: 'parameter_invalid', message: 'Unknown parameter: memo.' },
      {
        index: 6,
        param: 'amount',
        code: 'parameter_invalid',
        message: expect.stringContaining('payout fee'),
      },
      {
        index: 7,
        param: 'items',
        code: 'parameter_invalid',
        message: 'items[7] must be a payout object.',
      },
      {
        index: 9,
        param: 'currency',
        code: 'parameter_invalid',
        message: expect.stringContaining('currency must be one of'),
      },
    ]);
    expect(await footprint(merchant)).toEqual(before);
  });

  it('words each item error exactly as POST /v1/payouts words it', async () => {
    for (const item of [tron('twelve'), tron('1'), tron('12', { to_address: 'TNotAnAddress' })]) {
      const single = await postPayout(api, merchant, item).expect(400);
      const batch = await postBatch(merchant, [item]).expect(422);
      expect(batch.body.error.errors).toEqual([
        {
          index: 0,
          param: single.body.error.param,
          code: single.body.error.code,
          message: single.body.error.message,
        },
      ]);
    }
  });

  it('refuses a batch its balance cannot cover, per token, writing nothing', async () => {
    const before = await footprint(poor);
    // TRON: 3 × 40 = 120 > 100; Ethereum alone would fit.
    const response = await postBatch(poor, [
      tron('40'),
      { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: randomEvmAddress() },
      tron('40'),
      tron('40'),
    ]).expect(422);
    expect(response.body.error).toMatchObject({
      code: 'insufficient_balance',
      param: 'items',
      message:
        "Insufficient balance: 100 USDT available on TRON, 120 requested by the batch's payouts in USDT on TRON.",
    });
    expect(await footprint(poor)).toEqual(before);
    expect(await balanceOf(api, poor, 'TRON', 'USDT')).toEqual({ available: '100', held: '0' });
  });

  it('replays the same key and body, refuses the key with another body', async () => {
    const key = randomUUID();
    const items = [tron('20'), tron('30')];
    const first = await postBatch(poor, items, { 'Idempotency-Key': key }).expect(201);
    const payouts = await api.count('payouts', 'batch_id = $1', [first.body.id]);
    expect(payouts).toBe(2);
    const replay = await postBatch(poor, items, { 'Idempotency-Key': key }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await api.count('payout_batches', 'merchant_id = $1', [poor.id])).toBe(1);
    expect(await api.count('payouts', 'merchant_id = $1', [poor.id])).toBe(2);
    expect(await balanceOf(api, poor, 'TRON', 'USDT')).toEqual({ available: '50', held: '50' });

    const conflict = await postBatch(poor, [tron('20'), tron('31')], {
      'Idempotency-Key': key,
    }).expect(409);
    expect(conflict.body.error.code).toBe('idempotency_key_reused');
    expect(await api.count('payouts', 'merchant_id = $1', [poor.id])).toBe(2);

    const missing = await postBatch(poor, items, {}).expect(400);
    expect(missing.body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'Idempotency-Key',
    });
  });

  it("hides another merchant's batch", async () => {
    const [mine] = (await api.get(BATCHES, poor).expect(200)).body as Array<{ id: string }>;
    const missing = await api.get(`${BATCHES}/${mine.id}`, other).expect(404);
    expect(missing.body.error).toMatchObject({
      code: 'resource_missing',
      message: `No such payout batch: '${mine.id}'.`,
    });
    expect((await api.get(BATCHES, other).expect(200)).body).toEqual([]);
    const payouts = await api.get(`${PAYOUTS}?batch_id=${mine.id}`, other).expect(200);
    expect(payouts.body).toEqual([]);
  });

  it("pays a sub-merchant's batch from its own balance", async () => {
    const headers = { 'Idempotency-Key': randomUUID(), 'X-Sub-Merchant-Code': 'seller-a' };
    const refused = await postBatch(psp, [tron('40'), tron('40')], headers).expect(422);
    expect(refused.body.error.code).toBe('insufficient_balance');
    const created = await postBatch(psp, [tron('25'), tron('35')], {
      ...headers,
      'Idempotency-Key': randomUUID(),
    }).expect(201);
    expect(created.body).toMatchObject({ sub_merchant_code: 'seller-a', item_count: 2 });
    expect(await balanceOf(api, psp, 'TRON', 'USDT', 'seller-a')).toEqual({
      available: '0',
      held: '60',
    });
    expect(await balanceOf(api, psp, 'TRON', 'USDT')).toEqual({ available: '500', held: '0' });
    const listed = await api
      .get(`${PAYOUTS}?batch_id=${created.body.id}&sub_merchant_code=seller-a`, psp)
      .expect(200);
    expect(
      listed.body.map((payout: { sub_merchant_code: string }) => payout.sub_merchant_code),
    ).toEqual(['seller-a', 'seller-a']);
    expect(
      (await api.get(`${BATCHES}?sub_merchant_code=seller-a`, psp).expect(200)).body.map(
        (batch: { id: string }) => batch.id,
      ),
    ).toEqual([created.body.id]);
    expect((await api.get(BATCHES, psp).expect(200)).body).toEqual([]);
  });

  describe('body limits', () => {
    const paddedBatch = (bytes: number) => {
      const items: Item[] = [];
      while (JSON.stringify({ items }).length < bytes) {
        items.push(tron('12', { description: 'x'.repeat(400) }));
      }
      return items;
    };

    it('takes a batch above 64 kB and refuses one above 256 kB with 413', async () => {
      const large = await postBatch(poor, paddedBatch(300 * 1024)).expect(413);
      expect(large.body.error).toMatchObject({
        code: 'request_too_large',
        message: 'The request body is larger than 256 kB.',
      });
      // 70 kB, but amounts the balance cannot cover: past the body limit, refused by the service.
      const items = paddedBatch(70 * 1024).map((item) => ({ ...item, amount: '1000' }));
      const accepted = await postBatch(poor, items.slice(0, 160)).expect(422);
      expect(accepted.body.error.code).toBe('insufficient_balance');
    });

    it('keeps 64 kB on every other route', async () => {
      const body = tron('12', { metadata: 'x'.repeat(70 * 1024) });
      const refused = await postPayout(api, poor, body).expect(413);
      expect(refused.body.error).toMatchObject({
        code: 'request_too_large',
        message: 'The request body is larger than 64 kB.',
      });
      const quote = await api.post(`${PAYOUTS}/quote`, poor, body).expect(413);
      expect(quote.body.error.code).toBe('request_too_large');
      // The batch route's GET and a path under it do not get the larger limit either.
      const under = await api
        .post(`${BATCHES}/anything`, poor, { items: paddedBatch(70 * 1024) })
        .expect(413);
      expect(under.body.error.code).toBe('request_too_large');
    });
  });
});
