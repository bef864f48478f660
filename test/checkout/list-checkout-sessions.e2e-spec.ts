import { CheckoutSessionsRepository } from '../../libs/checkout/src/checkout-sessions.repository';
import { insertSessionTransaction } from '../support/session-transactions';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';

function body(network: string, currency = 'USDT', reference?: string) {
  return {
    pricing_amount: '10',
    pricing_currency: 'USD',
    currency,
    network,
    ...(reference ? { client_reference_id: reference } : {}),
  };
}

describe('Checkout sessions: list', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const ids: string[] = [];

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Lister' });
    other = await api.createMerchant({ name: 'Someone else' });
    // 25 sessions, alternating networks; created in order so the newest is last.
    for (let i = 0; i < 25; i++) {
      const network = i % 2 === 0 ? 'TRON' : 'ETHEREUM';
      const { body: created } = await api
        .post(SESSIONS, merchant, body(network, 'USDT', `r${i}`))
        .expect(201);
      ids.push(created.id);
    }
    await api.post(SESSIONS, other, body('TRON')).expect(201);
    // Give sessions distinct statuses and creation times to filter on.
    await api.dataSource.query(`UPDATE checkout_sessions SET status = 'Paid' WHERE id = ANY($1)`, [
      ids.slice(0, 3),
    ]);
    await api.dataSource.query(`UPDATE checkout_sessions SET status = 'Expired' WHERE id = $1`, [
      ids[3],
    ]);
    await api.dataSource.query(
      `UPDATE checkout_sessions SET created_at = '2026-01-01T00:00:00Z' WHERE id = ANY($1)`,
      [ids.slice(0, 2)],
    );
  });

  afterAll(() => api.close());

  const newestFirst = () => [...ids].reverse();

  it('returns a bare array, newest first, 20 by default, with X-Total-Count and Link', async () => {
    const response = await api.get(SESSIONS, merchant).expect(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.map((s: { id: string }) => s.id)).toEqual(newestFirst().slice(0, 20));
    expect(response.headers['x-total-count']).toBe('25');
    expect(response.headers.link).toBe(
      [
        `</v1/checkout/sessions?page=1&page_size=20>; rel="first"`,
        `</v1/checkout/sessions?page=2&page_size=20>; rel="next"`,
        `</v1/checkout/sessions?page=2&page_size=20>; rel="last"`,
      ].join(', '),
    );
    expect(response.body[0]).toHaveProperty('transactions', []);
  });

  it("never lists another merchant's sessions", async () => {
    const { body: theirs } = await api.get(SESSIONS, other).expect(200);
    expect(theirs).toHaveLength(1);
    const { body: all } = await api.get(`${SESSIONS}?page_size=100`, merchant).expect(200);
    expect(all.map((s: { id: string }) => s.id)).not.toContain(theirs[0].id);
  });

  it.each([
    ['0', 20],
    ['1', 20],
    ['2', 5],
    ['3', 0],
  ])('page %s', async (page, length) => {
    const { body: items } = await api.get(`${SESSIONS}?page=${page}`, merchant).expect(200);
    expect(items).toHaveLength(length);
  });

  it('page 0 is the first page', async () => {
    const zero = await api.get(`${SESSIONS}?page=0`, merchant).expect(200);
    const one = await api.get(`${SESSIONS}?page=1`, merchant).expect(200);
    expect(zero.body).toEqual(one.body);
  });

  it('links prev and next from a middle page', async () => {
    const response = await api
      .get(`${SESSIONS}?page=2&page_size=10&network=TRON`, merchant)
      .expect(200);
    expect(response.headers['x-total-count']).toBe('13');
    expect(response.headers.link).toContain(
      '</v1/checkout/sessions?network=TRON&page=1&page_size=10>; rel="prev"',
    );
    expect(response.headers.link).toContain('rel="last"');
    expect(response.headers.link).not.toContain('rel="next"');
  });

  it.each([
    ['0', 20],
    ['100', 25],
    ['7', 7],
  ])('page_size %s', async (size, length) => {
    const { body: items } = await api.get(`${SESSIONS}?page_size=${size}`, merchant).expect(200);
    expect(items).toHaveLength(length);
  });

  it.each([
    ['page_size=101', 'page_size'],
    ['page_size=-1', 'page_size'],
    ['page_size=abc', 'page_size'],
    ['page_size=1.5', 'page_size'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1e2', 'page'],
    ['status=Cancelled', 'status'],
    ['network=SOLANA', 'network'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-13-01T00:00:00Z', 'created_before'],
    ['sort=asc', 'sort'],
  ])('%s is a 400 naming the parameter', async (query, param) => {
    const { body: error } = await api.get(`${SESSIONS}?${query}`, merchant).expect(400);
    expect(error.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('filters by one status and by several', async () => {
    const paid = await api.get(`${SESSIONS}?status=Paid`, merchant).expect(200);
    expect(paid.body.map((s: { id: string }) => s.id).sort()).toEqual(ids.slice(0, 3).sort());
    expect(paid.body.every((s: { status: string }) => s.status === 'Paid')).toBe(true);
    const both = await api.get(`${SESSIONS}?status=Paid&status=Expired`, merchant).expect(200);
    expect(both.body.map((s: { id: string }) => s.id).sort()).toEqual(ids.slice(0, 4).sort());
    expect(both.headers['x-total-count']).toBe('4');
  });

  it('filters by network', async () => {
    const { body: items } = await api
      .get(`${SESSIONS}?network=ETHEREUM&page_size=100`, merchant)
      .expect(200);
    expect(items).toHaveLength(12);
    expect(items.every((s: { network: string }) => s.network === 'ETHEREUM')).toBe(true);
  });

  it('filters by creation time, both bounds exclusive', async () => {
    const after = await api
      .get(`${SESSIONS}?created_after=2026-01-01T00:00:00Z&page_size=100`, merchant)
      .expect(200);
    expect(after.body).toHaveLength(23);
    const before = await api
      .get(`${SESSIONS}?created_before=2026-01-01T00:00:01%2B00:00`, merchant)
      .expect(200);
    expect(before.body.map((s: { id: string }) => s.id).sort()).toEqual(ids.slice(0, 2).sort());
    const window = await api
      .get(
        `${SESSIONS}?created_after=2025-12-31T23:59:59Z&created_before=2026-01-01T00:00:00Z`,
        merchant,
      )
      .expect(200);
    expect(window.body).toHaveLength(0);
  });

  it('searches by session id, pay address (any case) and transaction hash', async () => {
    const { body: target } = await api.get(`${SESSIONS}/${ids[5]}`, merchant).expect(200);
    const byId = await api.get(`${SESSIONS}?search_text=${ids[5]}`, merchant).expect(200);
    expect(byId.body.map((s: { id: string }) => s.id)).toEqual([ids[5]]);

    const evm = await api.get(`${SESSIONS}/${ids[7]}`, merchant).expect(200);
    const byAddress = await api
      .get(`${SESSIONS}?search_text=${evm.body.pay_address.toLowerCase()}`, merchant)
      .expect(200);
    expect(byAddress.body.map((s: { id: string }) => s.id)).toEqual([ids[7]]);

    await insertSessionTransaction(api.dataSource, {
      id: 'ctx_search',
      sessionId: target.id,
      txHash: '0xABCDEF0123',
      amount: '1',
    });
    const byHash = await api.get(`${SESSIONS}?search_text=0xabcdef0123`, merchant).expect(200);
    expect(byHash.body.map((s: { id: string }) => s.id)).toEqual([ids[5]]);
  });

  it("search never reaches another merchant's sessions", async () => {
    const { body: theirs } = await api.get(SESSIONS, other).expect(200);
    const { body: found } = await api
      .get(`${SESSIONS}?search_text=${theirs[0].id}`, merchant)
      .expect(200);
    expect(found).toEqual([]);
    const byAddress = await api
      .get(`${SESSIONS}?search_text=${theirs[0].pay_address}`, merchant)
      .expect(200);
    expect(byAddress.body).toEqual([]);
  });

  it('combines filters', async () => {
    const { body: items, headers } = await api
      .get(`${SESSIONS}?status=Paid&network=TRON&created_after=2026-01-02T00:00:00Z`, merchant)
      .expect(200);
    // ids[0] is Paid+TRON but old; ids[2] is Paid+TRON and recent; ids[1] is ETHEREUM.
    expect(items.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    expect(headers['x-total-count']).toBe('1');
  });

  it('reads only the columns of the public object, never the fee rule or the key behind the address', async () => {
    const repository = api.app.get(CheckoutSessionsRepository);
    const byId = await repository.findForMerchant(merchant.id, ids[0]);
    const { rows } = await repository.list(
      { merchantId: merchant.id, scope: { kind: 'all' } },
      { page: 1, pageSize: 2, offset: 0, includeTotal: false },
    );
    for (const row of [byId, ...rows]) {
      const columns = Object.keys(row ?? {});
      expect(columns).toEqual(expect.arrayContaining(['id', 'pay_address', 'created_at']));
      for (const internal of [
        'fee_percent',
        'fee_fixed',
        'key_fingerprint',
        'derivation_index',
        'updated_at',
        'ledger_version',
      ]) {
        expect(columns).not.toContain(internal);
      }
    }
  });
});
