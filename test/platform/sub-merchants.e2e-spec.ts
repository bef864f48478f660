import request from 'supertest';
import { TestApi, TestMerchant } from '../support/test-app';

const SUB_MERCHANTS = '/v1/sub-merchants';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Sub-merchants', () => {
  let api: TestApi;
  let psp: TestMerchant;
  let otherPsp: TestMerchant;
  let direct: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    psp = await api.createMerchant({ name: 'PayCo', kind: 'psp' });
    otherPsp = await api.createMerchant({ name: 'OtherPay', kind: 'psp' });
    direct = await api.createMerchant({ name: 'Direct Shop' });
  });

  afterAll(() => api.close());

  const patch = (path: string, who: TestMerchant, body: unknown) =>
    request(api.http)
      .patch(path)
      .set('Authorization', `Bearer ${who.apiKey}`)
      .send(body as object);

  it('creates a sub-merchant with every field', async () => {
    const { body } = await api
      .post(SUB_MERCHANTS, psp, {
        code: 'corner-coffee_1',
        name: 'Corner Coffee',
        email: 'owner@corner.example',
        website: 'https://corner.example',
        logo_url: 'https://corner.example/logo.png',
        metadata: { region: 'EU', tier: 'gold' },
      })
      .expect(201);
    expect(body).toEqual({
      code: 'corner-coffee_1',
      name: 'Corner Coffee',
      status: 'active',
      email: 'owner@corner.example',
      website: 'https://corner.example',
      logo_url: 'https://corner.example/logo.png',
      metadata: { region: 'EU', tier: 'gold' },
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: expect.stringMatching(ISO_UTC),
    });
    const read = await api.get(`${SUB_MERCHANTS}/corner-coffee_1`, psp).expect(200);
    expect(read.body).toEqual(body);
  });

  it('defaults optional fields to null, {} and active', async () => {
    const { body } = await api
      .post(SUB_MERCHANTS, psp, { code: 'min', name: 'Minimal' })
      .expect(201);
    expect(body).toMatchObject({
      status: 'active',
      email: null,
      website: null,
      logo_url: null,
      metadata: {},
    });
  });

  it('refuses a duplicate code with 409, but lets another PSP use the same code', async () => {
    await api.post(SUB_MERCHANTS, psp, { code: 'dup-code', name: 'First' }).expect(201);
    const { body } = await api
      .post(SUB_MERCHANTS, psp, { code: 'dup-code', name: 'Second' })
      .expect(409);
    expect(body.error).toMatchObject({ code: 'resource_already_exists', param: 'code' });
    await api.post(SUB_MERCHANTS, otherPsp, { code: 'dup-code', name: 'Theirs' }).expect(201);
    const mine = await api.get(`${SUB_MERCHANTS}/dup-code`, psp).expect(200);
    expect(mine.body.name).toBe('First');
  });

  it('replays a creation with the same Idempotency-Key instead of a 409', async () => {
    const headers = { 'Idempotency-Key': 'sm-create-1' };
    const first = await api
      .post(SUB_MERCHANTS, psp, { code: 'idem-sm', name: 'Idem' }, headers)
      .expect(201);
    const again = await api
      .post(SUB_MERCHANTS, psp, { code: 'idem-sm', name: 'Idem' }, headers)
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await api.post(SUB_MERCHANTS, psp, { code: 'idem-sm', name: 'Other' }, headers).expect(409);
  });

  describe('validation', () => {
    it.each([
      ['short code', { code: 'ab', name: 'X' }, 'code', 'parameter_invalid'],
      ['long code', { code: 'a'.repeat(65), name: 'X' }, 'code', 'parameter_invalid'],
      ['code with a space', { code: 'a b c', name: 'X' }, 'code', 'parameter_invalid'],
      ['code with a dot', { code: 'a.b.c', name: 'X' }, 'code', 'parameter_invalid'],
      ['missing code', { name: 'X' }, 'code', 'parameter_missing'],
      ['missing name', { code: 'valid-code' }, 'name', 'parameter_missing'],
      ['empty name', { code: 'valid-code', name: '' }, 'name', 'parameter_invalid'],
      [
        'bad status',
        { code: 'valid-code', name: 'X', status: 'closed' },
        'status',
        'parameter_invalid',
      ],
      ['bad email', { code: 'valid-code', name: 'X', email: 'nope' }, 'email', 'parameter_invalid'],
      [
        'bad website',
        { code: 'valid-code', name: 'X', website: 'javascript:alert(1)' },
        'website',
        'parameter_invalid',
      ],
      [
        'bad logo',
        { code: 'valid-code', name: 'X', logo_url: 'ftp://x.example/a.png' },
        'logo_url',
        'parameter_invalid',
      ],
      [
        'metadata array',
        { code: 'valid-code', name: 'X', metadata: ['a'] },
        'metadata',
        'parameter_invalid',
      ],
      [
        'metadata number',
        { code: 'valid-code', name: 'X', metadata: { a: 1 } },
        'metadata',
        'parameter_invalid',
      ],
      [
        'metadata too big',
        {
          code: 'valid-code',
          name: 'X',
          metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
        },
        'metadata',
        'parameter_invalid',
      ],
      [
        'unknown field',
        { code: 'valid-code', name: 'X', kind: 'psp' },
        'kind',
        'parameter_invalid',
      ],
    ])('%s is a 400', async (_name, body, param, code) => {
      const response = await api.post(SUB_MERCHANTS, psp, body).expect(400);
      expect(response.body.error).toMatchObject({ code, param });
      await api.get(`${SUB_MERCHANTS}/valid-code`, psp).expect(404);
    });
  });

  it('updates only the fields sent, clears with null, and never changes the code', async () => {
    await api
      .post(SUB_MERCHANTS, psp, {
        code: 'to-update',
        name: 'Before',
        email: 'a@b.example',
        website: 'https://before.example',
        metadata: { a: '1' },
      })
      .expect(201);
    const { body: updated } = await patch(`${SUB_MERCHANTS}/to-update`, psp, {
      name: 'After',
      email: null,
      metadata: { b: '2' },
    }).expect(200);
    expect(updated).toMatchObject({
      code: 'to-update',
      name: 'After',
      email: null,
      website: 'https://before.example',
      metadata: { b: '2' },
      status: 'active',
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(updated.created_at));
    const codeChange = await patch(`${SUB_MERCHANTS}/to-update`, psp, { code: 'renamed' }).expect(
      400,
    );
    expect(codeChange.body.error).toMatchObject({ code: 'parameter_invalid', param: 'code' });
    expect(codeChange.body.error.message).toContain('cannot be changed');
    const nullName = await patch(`${SUB_MERCHANTS}/to-update`, psp, { name: null }).expect(400);
    expect(nullName.body.error.param).toBe('name');
    await api.get(`${SUB_MERCHANTS}/renamed`, psp).expect(404);
  });

  it('lists newest first with status and search filters and pagination headers', async () => {
    const lister = await api.createMerchant({ name: 'ListPay', kind: 'psp' });
    for (const [code, name] of [
      ['alpha-1', 'Alpha Bakery'],
      ['beta-2', 'Beta Books'],
      ['gamma-3', 'Gamma Garage'],
    ]) {
      await api.post(SUB_MERCHANTS, lister, { code, name }).expect(201);
    }
    await patch(`${SUB_MERCHANTS}/beta-2`, lister, { status: 'disabled' }).expect(200);

    const all = await api.get(SUB_MERCHANTS, lister).expect(200);
    expect(all.body.map((item: { code: string }) => item.code)).toEqual([
      'gamma-3',
      'beta-2',
      'alpha-1',
    ]);
    expect(all.headers['x-total-count']).toBe('3');

    const disabled = await api.get(`${SUB_MERCHANTS}?status=disabled`, lister).expect(200);
    expect(disabled.body.map((item: { code: string }) => item.code)).toEqual(['beta-2']);

    const byName = await api.get(`${SUB_MERCHANTS}?search_text=garage`, lister).expect(200);
    expect(byName.body.map((item: { code: string }) => item.code)).toEqual(['gamma-3']);
    const byCode = await api.get(`${SUB_MERCHANTS}?search_text=ALPHA`, lister).expect(200);
    expect(byCode.body.map((item: { code: string }) => item.code)).toEqual(['alpha-1']);
    const wildcard = await api.get(`${SUB_MERCHANTS}?search_text=%25`, lister).expect(200);
    expect(wildcard.body).toEqual([]);

    const paged = await api.get(`${SUB_MERCHANTS}?page=2&page_size=2`, lister).expect(200);
    expect(paged.body.map((item: { code: string }) => item.code)).toEqual(['alpha-1']);
    expect(paged.headers.link).toContain('rel="prev"');
    await api.get(`${SUB_MERCHANTS}?page_size=101`, lister).expect(400);
    await api.get(`${SUB_MERCHANTS}?status=closed`, lister).expect(400);
  });

  describe('tenancy', () => {
    it('refuses direct merchants every operation with 403 permission_denied', async () => {
      const responses = [
        await api.post(SUB_MERCHANTS, direct, { code: 'mine', name: 'Mine' }),
        await api.get(SUB_MERCHANTS, direct),
        await api.get(`${SUB_MERCHANTS}/corner-coffee_1`, direct),
        await patch(`${SUB_MERCHANTS}/corner-coffee_1`, direct, { name: 'Hijack' }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(403);
        expect(response.body.error).toMatchObject({
          type: 'permission_error',
          code: 'permission_denied',
        });
      }
    });

    it("answers 404 for another PSP's code, and never lists or changes it", async () => {
      const get = await api.get(`${SUB_MERCHANTS}/corner-coffee_1`, otherPsp).expect(404);
      expect(get.body.error).toMatchObject({ code: 'resource_missing', param: 'code' });
      await patch(`${SUB_MERCHANTS}/corner-coffee_1`, otherPsp, { name: 'Hijack' }).expect(404);
      const list = await api.get(`${SUB_MERCHANTS}?page_size=100`, otherPsp).expect(200);
      expect(list.body.map((item: { code: string }) => item.code)).not.toContain('corner-coffee_1');
      const mine = await api.get(`${SUB_MERCHANTS}/corner-coffee_1`, psp).expect(200);
      expect(mine.body.name).toBe('Corner Coffee');
    });
  });
});
