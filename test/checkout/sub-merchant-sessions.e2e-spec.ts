import request from 'supertest';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const SUB_MERCHANTS = '/v1/sub-merchants';
const body = { pricing_amount: '12', pricing_currency: 'USD', currency: 'USDT', network: 'TRON' };

describe('Sessions for sub-merchants (X-Sub-Merchant-Code)', () => {
  let api: TestApi;
  let psp: TestMerchant;
  let otherPsp: TestMerchant;
  let direct: TestMerchant;
  const own: string[] = [];
  const ofA: string[] = [];
  const ofB: string[] = [];

  const create = (who: TestMerchant, code?: string, extra: Record<string, string> = {}) =>
    api.post(SESSIONS, who, body, { ...(code ? { 'X-Sub-Merchant-Code': code } : {}), ...extra });
  const ids = (response: { body: Array<{ id: string }> }) =>
    response.body.map((item) => item.id).sort();

  beforeAll(async () => {
    api = await TestApi.start();
    psp = await api.createMerchant({
      name: 'PayCo',
      kind: 'psp',
      logoUrl: 'https://payco.example/logo.png',
    });
    otherPsp = await api.createMerchant({ name: 'OtherPay', kind: 'psp' });
    direct = await api.createMerchant({ name: 'Direct' });
    await api
      .post(SUB_MERCHANTS, psp, {
        code: 'shop-a',
        name: 'Shop A',
        logo_url: 'https://a.example/logo.png',
      })
      .expect(201);
    await api.post(SUB_MERCHANTS, psp, { code: 'shop-b', name: 'Shop B' }).expect(201);
    await api.post(SUB_MERCHANTS, otherPsp, { code: 'their-shop', name: 'Theirs' }).expect(201);
    for (let i = 0; i < 2; i++) own.push((await create(psp).expect(201)).body.id);
    for (let i = 0; i < 3; i++) ofA.push((await create(psp, 'shop-a').expect(201)).body.id);
    ofB.push((await create(psp, 'shop-b').expect(201)).body.id);
  });

  afterAll(() => api.close());

  it('creates the session under the sub-merchant, showing its name and logo', async () => {
    const { body: session } = await api.get(`${SESSIONS}/${ofA[0]}`, psp).expect(200);
    expect(session).toMatchObject({
      sub_merchant_code: 'shop-a',
      merchant_name: 'Shop A',
      merchant_logo_url: 'https://a.example/logo.png',
    });
    const { body: created } = await create(psp, 'shop-b').expect(201);
    ofB.push(created.id);
    // Shop B has no logo: the PSP's is shown.
    expect(created).toMatchObject({
      sub_merchant_code: 'shop-b',
      merchant_name: 'Shop B',
      merchant_logo_url: 'https://payco.example/logo.png',
    });
    const read = await api.get(`${SESSIONS}/${created.id}`, psp).expect(200);
    expect(read.body).toEqual(created);
  });

  it("keeps the PSP's own sessions without a sub-merchant", async () => {
    const { body: session } = await api.get(`${SESSIONS}/${own[0]}`, psp).expect(200);
    expect(session).toMatchObject({ sub_merchant_code: null, merchant_name: 'PayCo' });
  });

  it('lists only own sessions by default', async () => {
    expect(ids(await api.get(SESSIONS, psp).expect(200))).toEqual([...own].sort());
  });

  it('adds every sub-merchant with include_sub_merchants=true', async () => {
    const response = await api.get(`${SESSIONS}?include_sub_merchants=true`, psp).expect(200);
    expect(ids(response)).toEqual([...own, ...ofA, ...ofB].sort());
    expect(response.headers['x-total-count']).toBe(String(own.length + ofA.length + ofB.length));
    expect(ids(await api.get(`${SESSIONS}?include_sub_merchants=false`, psp).expect(200))).toEqual(
      [...own].sort(),
    );
  });

  it('restricts to one sub-merchant with sub_merchant_code, with or without include_sub_merchants', async () => {
    expect(ids(await api.get(`${SESSIONS}?sub_merchant_code=shop-a`, psp).expect(200))).toEqual(
      [...ofA].sort(),
    );
    expect(
      ids(
        await api
          .get(`${SESSIONS}?sub_merchant_code=shop-b&include_sub_merchants=true`, psp)
          .expect(200),
      ),
    ).toEqual([...ofB].sort());
  });

  it('combines the scope with other filters', async () => {
    const search = await api
      .get(`${SESSIONS}?sub_merchant_code=shop-b&search_text=${ofA[0]}`, psp)
      .expect(200);
    expect(search.body).toEqual([]);
    const found = await api
      .get(`${SESSIONS}?include_sub_merchants=true&search_text=${ofA[0]}`, psp)
      .expect(200);
    expect(ids(found)).toEqual([ofA[0]]);
  });

  it.each([
    ['include_sub_merchants=yes', 'include_sub_merchants', 'parameter_invalid'],
    ['include_sub_merchants=1', 'include_sub_merchants', 'parameter_invalid'],
    ['sub_merchant_code=nope-nope', 'sub_merchant_code', 'invalid_sub_merchant_code'],
    ['sub_merchant_code=their-shop', 'sub_merchant_code', 'invalid_sub_merchant_code'],
  ])('%s is a 400', async (query, param, code) => {
    const response = await api.get(`${SESSIONS}?${query}`, psp).expect(400);
    expect(response.body.error).toMatchObject({ code, param });
  });

  it('refuses the header from a direct merchant with 403 and creates nothing', async () => {
    const before = await api.count('checkout_sessions', 'merchant_id = $1', [direct.id]);
    const response = await create(direct, 'shop-a').expect(403);
    expect(response.body.error).toMatchObject({
      code: 'permission_denied',
      type: 'permission_error',
    });
    expect(await api.count('checkout_sessions', 'merchant_id = $1', [direct.id])).toBe(before);
    await api.get(`${SESSIONS}?sub_merchant_code=shop-a`, direct).expect(403);
  });

  it.each([
    ['an unknown code', 'no-such-shop'],
    ["another PSP's code", 'their-shop'],
    ['a malformed code', 'bad code!'],
  ])('refuses %s in the header with 400 invalid_sub_merchant_code', async (_name, code) => {
    const before = await api.count('checkout_sessions');
    const response = await create(psp, code).expect(400);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_sub_merchant_code',
      param: 'X-Sub-Merchant-Code',
    });
    expect(await api.count('checkout_sessions')).toBe(before);
  });

  it('refuses new sessions for a disabled sub-merchant with 422, but keeps listing its old ones', async () => {
    await api.post(SUB_MERCHANTS, psp, { code: 'closing', name: 'Closing Soon' }).expect(201);
    const { body: old } = await create(psp, 'closing').expect(201);
    await request(api.http)
      .patch(`${SUB_MERCHANTS}/closing`)
      .set('Authorization', `Bearer ${psp.apiKey}`)
      .send({ status: 'disabled' })
      .expect(200);
    const refused = await create(psp, 'closing').expect(422);
    expect(refused.body.error).toMatchObject({
      code: 'sub_merchant_disabled',
      param: 'X-Sub-Merchant-Code',
    });
    const listed = await api.get(`${SESSIONS}?sub_merchant_code=closing`, psp).expect(200);
    expect(ids(listed)).toEqual([old.id]);
    await api.get(`${SESSIONS}/${old.id}`, psp).expect(200);
  });

  it('treats the same Idempotency-Key with another sub-merchant as a different request (409)', async () => {
    const headers = { 'Idempotency-Key': 'psp-idem-1' };
    await create(psp, 'shop-a', headers).expect(201);
    const replay = await create(psp, 'shop-a', headers).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const other = await create(psp, 'shop-b', headers).expect(409);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it("never shows a PSP's sub-merchant sessions to another PSP", async () => {
    await api.get(`${SESSIONS}/${ofA[0]}`, otherPsp).expect(404);
    const theirs = await api
      .get(`${SESSIONS}?include_sub_merchants=true&page_size=100`, otherPsp)
      .expect(200);
    expect(theirs.body).toEqual([]);
  });
});
