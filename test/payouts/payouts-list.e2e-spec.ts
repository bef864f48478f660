import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
  cleanUpPayouts,
  subMerchantId,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

type Item = { id: string };
const idsOf = (response: { body: Item[] }) => response.body.map((item) => item.id);

describe('Payouts: list', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let theirs: string;
  /** Oldest first: ids[0] was created first. Even ones on TRON, odd ones on ETHEREUM. */
  const ids: string[] = [];
  const addresses: string[] = [];

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Payout Lister' });
    other = await api.createMerchant({ name: 'Other Lister' });
    for (const [who, network] of [
      [merchant, 'TRON'],
      [merchant, 'ETHEREUM'],
      [other, 'TRON'],
    ] as const) {
      await creditBalance(api.dataSource, {
        merchantId: who.id,
        network,
        currency: 'USDT',
        amount: '1000',
      });
    }
    for (let i = 0; i < 12; i++) {
      const tron = i % 2 === 0;
      const to = tron ? randomTronAddress() : randomEvmAddress();
      const { body } = await postPayout(api, merchant, {
        amount: String(10 + i),
        currency: 'USDT',
        network: tron ? 'TRON' : 'ETHEREUM',
        to_address: to,
      }).expect(201);
      ids.push(body.id);
      addresses.push(to);
    }
    theirs = (
      await postPayout(api, other, {
        amount: '10',
        currency: 'USDT',
        network: 'TRON',
        to_address: addresses[0],
      }).expect(201)
    ).body.id;
    await api.dataSource.query(
      `UPDATE payouts SET status = 'Completed', completed_at = now(), tx_hash = '0x' || md5(id) || md5(id),
              created_at = CASE id WHEN $1 THEN timestamptz '2025-12-31T00:00:00Z'
                                   ELSE timestamptz '2026-01-01T00:00:00Z' END
        WHERE id IN ($1, $2)`,
      [ids[0], ids[1]],
    );
    await api.dataSource.query(
      `UPDATE payouts SET status = 'Failed', error_reason = 'reverted' WHERE id = $1`,
      [ids[2]],
    );
    await api.dataSource.query(
      `UPDATE payouts SET status = 'Processing', tx_hash = '0xABCDEF0123456789' WHERE id = $1`,
      [ids[3]],
    );
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, other]);
    await api.close();
  });

  const newestFirst = () => [...ids].reverse();

  it('returns a bare array of payout objects, newest first, with X-Total-Count and Link', async () => {
    const response = await api.get(`${PAYOUTS}?page_size=5`, merchant).expect(200);
    expect(idsOf(response)).toEqual(newestFirst().slice(0, 5));
    expect(response.headers['x-total-count']).toBe('12');
    expect(response.headers.link).toBe(
      [
        `</v1/payouts?page=1&page_size=5>; rel="first"`,
        `</v1/payouts?page=2&page_size=5>; rel="next"`,
        `</v1/payouts?page=3&page_size=5>; rel="last"`,
      ].join(', '),
    );
    const read = await api.get(`${PAYOUTS}/${ids[11]}`, merchant).expect(200);
    expect(response.body[0]).toEqual(read.body);
  });

  it.each([
    ['page=1&page_size=5', 5],
    ['page=0&page_size=5', 5],
    ['page=2&page_size=5', 5],
    ['page=3&page_size=5', 2],
    ['page=4&page_size=5', 0],
    ['page_size=0', 12],
    ['page=1', 12],
  ])('%s gives %i items', async (query, length) => {
    const { body } = await api.get(`${PAYOUTS}?${query}`, merchant).expect(200);
    expect(body).toHaveLength(length);
  });

  it('pages through every payout exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      seen.push(...idsOf(await api.get(`${PAYOUTS}?page=${page}&page_size=5`, merchant)));
    }
    expect(seen).toEqual(newestFirst());
  });

  it.each([
    ['page_size=101', 'page_size'],
    ['page=-1', 'page'],
    ['status=Cancelled', 'status'],
    ['status=pending', 'status'],
    ['network=SOLANA', 'network'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-13-01T00:00:00Z', 'created_before'],
    ['include_sub_merchants=yes', 'include_sub_merchants'],
    ['sort=asc', 'sort'],
  ])('%s is a 400 naming the parameter', async (query, param) => {
    const { body } = await api.get(`${PAYOUTS}?${query}`, merchant).expect(400);
    expect(body.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('filters by one status and by several', async () => {
    const completed = await api.get(`${PAYOUTS}?status=Completed`, merchant).expect(200);
    expect(idsOf(completed)).toEqual([ids[1], ids[0]]);
    expect(completed.body[0]).toMatchObject({
      status: 'Completed',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      completed_at: expect.stringMatching(/\+00:00$/),
    });
    const several = await api
      .get(`${PAYOUTS}?status=Completed&status=Failed&status=Processing`, merchant)
      .expect(200);
    expect(idsOf(several)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(several.headers['x-total-count']).toBe('4');
    const pending = await api.get(`${PAYOUTS}?status=Pending`, merchant).expect(200);
    expect(idsOf(pending)).toEqual(newestFirst().slice(0, 8));
  });

  it('filters by network', async () => {
    const response = await api.get(`${PAYOUTS}?network=ETHEREUM`, merchant).expect(200);
    expect(idsOf(response)).toEqual(newestFirst().filter((_, i) => i % 2 === 0));
    expect(response.headers['x-total-count']).toBe('6');
  });

  it('filters by creation time, both bounds exclusive', async () => {
    const after = await api
      .get(`${PAYOUTS}?created_after=2026-01-01T00:00:00Z`, merchant)
      .expect(200);
    expect(idsOf(after)).toEqual(newestFirst().slice(0, 10));
    const before = await api
      .get(`${PAYOUTS}?created_before=2026-01-01T00:00:00.001%2B00:00`, merchant)
      .expect(200);
    expect(idsOf(before)).toEqual([ids[1], ids[0]]);
    const none = await api
      .get(
        `${PAYOUTS}?created_after=2025-12-31T23:59:59Z&created_before=2026-01-01T00:00:00Z`,
        merchant,
      )
      .expect(200);
    expect(none.body).toEqual([]);
  });

  it('searches by payout id, destination address (any case) and transaction hash (any case)', async () => {
    const search = async (text: string) =>
      idsOf(await api.get(`${PAYOUTS}?search_text=${encodeURIComponent(text)}`, merchant));
    expect(await search(ids[4])).toEqual([ids[4]]);
    expect(await search(addresses[5].toLowerCase())).toEqual([ids[5]]);
    expect(await search(addresses[5].toUpperCase().replace(/^0X/, '0x'))).toEqual([ids[5]]);
    expect(await search(addresses[6])).toEqual([ids[6]]);
    expect(await search('0xabcdef0123456789')).toEqual([ids[3]]);
    expect(await search('0xABCDEF0123456789')).toEqual([ids[3]]);
    expect(await search('0xabcdef')).toEqual([]);
    expect(await search(ids[4].toLowerCase())).toEqual([]);
  });

  it("never reaches another merchant's payouts, even by search", async () => {
    const { body: theirList } = await api.get(PAYOUTS, other).expect(200);
    expect(idsOf({ body: theirList })).toEqual([theirs]);
    // The other merchant paid the same address as ids[0]: only our own payout is found.
    const response = await api.get(`${PAYOUTS}?search_text=${addresses[0]}`, merchant).expect(200);
    expect(idsOf(response)).toEqual([ids[0]]);
    const byId = await api.get(`${PAYOUTS}?search_text=${theirs}`, merchant).expect(200);
    expect(byId.body).toEqual([]);
  });

  it('combines filters', async () => {
    const response = await api
      .get(`${PAYOUTS}?status=Pending&network=TRON&created_after=2026-06-01T00:00:00Z`, merchant)
      .expect(200);
    expect(idsOf(response)).toEqual([ids[10], ids[8], ids[6], ids[4]]);
  });
});

describe('Payouts for sub-merchants (X-Sub-Merchant-Code)', () => {
  let api: TestApi;
  let psp: TestMerchant;
  let otherPsp: TestMerchant;
  let direct: TestMerchant;
  const own: string[] = [];
  const ofA: string[] = [];
  const ofB: string[] = [];

  const body = (amount: string) => ({
    amount,
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
  });
  const pay = (who: TestMerchant, amount: string, code?: string, key = randomUUID()) =>
    postPayout(api, who, body(amount), {
      'Idempotency-Key': key,
      ...(code ? { 'X-Sub-Merchant-Code': code } : {}),
    });
  const fund = async (who: TestMerchant, amount: string, code?: string) =>
    creditBalance(api.dataSource, {
      merchantId: who.id,
      subMerchantId: code ? await subMerchantId(api, who, code) : null,
      network: 'TRON',
      currency: 'USDT',
      amount,
    });
  const sorted = (list: string[]) => [...list].sort();

  beforeAll(async () => {
    api = await TestApi.start();
    psp = await api.createMerchant({ name: 'PayCo', kind: 'psp' });
    otherPsp = await api.createMerchant({ name: 'OtherPay', kind: 'psp' });
    direct = await api.createMerchant({ name: 'Direct' });
    for (const code of ['shop-a', 'shop-b', 'closing']) {
      await api.post('/v1/sub-merchants', psp, { code, name: code }).expect(201);
    }
    await api.post('/v1/sub-merchants', otherPsp, { code: 'their-shop', name: 'T' }).expect(201);
    await fund(psp, '100');
    await fund(psp, '50', 'shop-a');
    await fund(direct, '100');
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [psp, otherPsp, direct]);
    await api.close();
  });

  it("draws on the sub-merchant's balance, not the PSP's own", async () => {
    const { body: payout } = await pay(psp, '20', 'shop-a').expect(201);
    ofA.push(payout.id);
    expect(payout.sub_merchant_code).toBe('shop-a');
    expect(await balanceOf(api, psp, 'TRON', 'USDT', 'shop-a')).toEqual({
      available: '30',
      held: '20',
    });
    expect(await balanceOf(api, psp, 'TRON', 'USDT')).toEqual({ available: '100', held: '0' });
    const { body: read } = await api.get(`${PAYOUTS}/${payout.id}`, psp).expect(200);
    expect(read).toEqual(payout);
  });

  it("refuses a sub-merchant's payout its own balance cannot cover, whatever the PSP has", async () => {
    const error = await pay(psp, '10', 'shop-b').expect(422);
    expect(error.body.error).toMatchObject({ code: 'insufficient_balance', param: 'amount' });
    const tooMuch = await pay(psp, '31', 'shop-a').expect(422);
    expect(tooMuch.body.error.code).toBe('insufficient_balance');
  });

  it("refuses a PSP's own payout its own balance cannot cover, whatever its sub-merchants have", async () => {
    const { body: payout } = await pay(psp, '80').expect(201);
    own.push(payout.id);
    expect(payout.sub_merchant_code).toBeNull();
    const error = await pay(psp, '25').expect(422);
    expect(error.body.error.code).toBe('insufficient_balance');
    // shop-a still has 30 of its own.
    ofA.push((await pay(psp, '25', 'shop-a').expect(201)).body.id);
    await fund(psp, '10', 'shop-b');
    ofB.push((await pay(psp, '10', 'shop-b').expect(201)).body.id);
    expect(await balanceOf(api, psp, 'TRON', 'USDT')).toEqual({ available: '20', held: '80' });
    expect(await balanceOf(api, psp, 'TRON', 'USDT', 'shop-a')).toEqual({
      available: '5',
      held: '45',
    });
    expect(await balanceOf(api, psp, 'TRON', 'USDT', 'shop-b')).toEqual({
      available: '0',
      held: '10',
    });
  });

  it('refuses the header from a direct merchant with 403 and creates nothing', async () => {
    const before = await api.count('payouts', 'merchant_id = $1', [direct.id]);
    const { body } = await pay(direct, '10', 'shop-a').expect(403);
    expect(body.error).toMatchObject({ code: 'permission_denied', type: 'permission_error' });
    expect(await api.count('payouts', 'merchant_id = $1', [direct.id])).toBe(before);
    await api.get(`${PAYOUTS}?sub_merchant_code=shop-a`, direct).expect(403);
  });

  it.each([
    ['an unknown code', 'no-such-shop'],
    ["another PSP's code", 'their-shop'],
    ['a malformed code', 'bad code!'],
  ])('refuses %s in the header with 400 invalid_sub_merchant_code', async (_name, code) => {
    const before = await api.count('payouts', 'merchant_id = $1', [psp.id]);
    const { body } = await pay(psp, '1.5', code).expect(400);
    expect(body.error).toMatchObject({
      code: 'invalid_sub_merchant_code',
      param: 'X-Sub-Merchant-Code',
    });
    expect(await api.count('payouts', 'merchant_id = $1', [psp.id])).toBe(before);
  });

  it('refuses payouts for a disabled sub-merchant with 422, but keeps listing its old ones', async () => {
    await fund(psp, '10', 'closing');
    const { body: old } = await pay(psp, '5', 'closing').expect(201);
    await request(api.http)
      .patch('/v1/sub-merchants/closing')
      .set('Authorization', `Bearer ${psp.apiKey}`)
      .send({ status: 'disabled' })
      .expect(200);
    const { body } = await pay(psp, '2', 'closing').expect(422);
    expect(body.error).toMatchObject({
      code: 'sub_merchant_disabled',
      param: 'X-Sub-Merchant-Code',
    });
    const listed = await api.get(`${PAYOUTS}?sub_merchant_code=closing`, psp).expect(200);
    expect(idsOf(listed)).toEqual([old.id]);
  });

  it('treats the same Idempotency-Key for another sub-merchant as a different request (409)', async () => {
    const key = randomUUID();
    const payload = body('2');
    const headers = (code: string) => ({ 'Idempotency-Key': key, 'X-Sub-Merchant-Code': code });
    const { body: first } = await postPayout(api, psp, payload, headers('shop-a')).expect(201);
    ofA.push(first.id);
    const replay = await postPayout(api, psp, payload, headers('shop-a')).expect(201);
    expect(replay.body.id).toBe(first.id);
    const { body: error } = await postPayout(api, psp, payload, headers('shop-b')).expect(409);
    expect(error.error.code).toBe('idempotency_key_reused');
    await postPayout(api, psp, payload, { 'Idempotency-Key': key }).expect(409);
  });

  it('lists only own payouts by default, all with include_sub_merchants, one with sub_merchant_code', async () => {
    const list = async (query: string) =>
      idsOf(await api.get(`${PAYOUTS}?page_size=100&${query}`, psp).expect(200));
    expect(sorted(await list(''))).toEqual(sorted(own));
    expect(sorted(await list('include_sub_merchants=false'))).toEqual(sorted(own));
    const all = await list('include_sub_merchants=true&status=Pending');
    expect(sorted(all)).toEqual(
      sorted([...own, ...ofA, ...ofB, ...(await list('sub_merchant_code=closing'))]),
    );
    expect(sorted(await list('sub_merchant_code=shop-a'))).toEqual(sorted(ofA));
    expect(sorted(await list('sub_merchant_code=shop-b&include_sub_merchants=true'))).toEqual(
      sorted(ofB),
    );
    const unknown = await api.get(`${PAYOUTS}?sub_merchant_code=their-shop`, psp).expect(400);
    expect(unknown.body.error).toMatchObject({
      code: 'invalid_sub_merchant_code',
      param: 'sub_merchant_code',
    });
  });

  it("never shows a PSP's sub-merchant payouts to another PSP", async () => {
    await api.get(`${PAYOUTS}/${ofA[0]}`, otherPsp).expect(404);
    const { body } = await api.get(`${PAYOUTS}?include_sub_merchants=true`, otherPsp).expect(200);
    expect(body).toEqual([]);
  });
});
