import request from 'supertest';
import { TestApi, TestMerchant } from '../support/test-app';

/**
 * Input PostgreSQL cannot store (NUL, lone surrogates), absurd nesting and date-times that are
 * ISO 8601 but not instants are a 400 naming the parameter, never a 500 from the database.
 */
describe('Bad input is a 400 before it reaches the database', () => {
  let api: TestApi;
  let direct: TestMerchant;
  let psp: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    direct = await api.createMerchant();
    psp = await api.createMerchant({ name: 'PayCo', kind: 'psp' });
  });

  afterAll(() => api.close());

  const expectInvalid = (response: request.Response, param: string) => {
    expect({ status: response.status, error: response.body.error }).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'parameter_invalid', param }),
    });
  };

  describe('NUL characters', () => {
    it.each([
      '/v1/checkout/sessions/cs_%00',
      '/v1/payouts/po_%00',
      '/v1/events/evt_%00',
      '/v1/events/evt_%00/deliveries',
      '/v1/webhook-endpoints/we_%00',
      '/v1/unmatched-transfers/ut_%00',
      '/v1/networks/TRON%00',
    ])('in the path id of GET %s', async (path) => {
      expectInvalid(await api.get(path, direct), path.includes('networks') ? 'name' : 'id');
    });

    it('in a sub-merchant code in the path', async () => {
      expectInvalid(await api.get('/v1/sub-merchants/shop%00', psp), 'code');
    });

    it('before authentication: no key needed to learn the input is unusable', async () => {
      expectInvalid(await request(api.http).get('/v1/payouts/po_%00'), 'id');
    });

    it('in the hosted page id, without an API key', async () => {
      for (const suffix of ['', '/state', '/qr.svg', '/stream']) {
        const response = await request(api.http).get(`/checkout/cs_%00${suffix}`);
        expectInvalid(response, 'id');
      }
    });

    it.each([
      '/v1/checkout/sessions?search_text=a%00b',
      '/v1/payouts?search_text=a%00b',
      '/v1/events?object_id=cs_%00',
    ])('in a query string: %s', async (path) => {
      const param = path.split('?')[1].split('=')[0];
      expectInvalid(await api.get(path, direct), param);
    });

    it('in a sub-merchant search, metadata value and metadata key, creating nothing', async () => {
      expectInvalid(await api.get('/v1/sub-merchants?search_text=%00', psp), 'search_text');
      expectInvalid(
        await api.post('/v1/sub-merchants', psp, {
          code: 'nul-value',
          name: 'Nul',
          metadata: { note: 'a\u0000b' },
        }),
        'metadata.note',
      );
      expectInvalid(
        await api.post('/v1/sub-merchants', psp, {
          code: 'nul-key',
          name: 'Nul',
          metadata: { 'no\u0000te': 'x' },
        }),
        'metadata',
      );
      expect(await api.count('sub_merchants', "code LIKE 'nul-%'")).toBe(0);
    });

    it('in body strings of every creating operation', async () => {
      expectInvalid(
        await api.post('/v1/checkout/sessions', direct, {
          pricing_amount: '10',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'TRON',
          client_reference_id: 'order\u0000',
        }),
        'client_reference_id',
      );
      expectInvalid(
        await api.post(
          '/v1/payouts',
          direct,
          { amount: '1', currency: 'USDT', network: 'TRON', to_address: 'T', metadata: '\u0000' },
          { 'Idempotency-Key': 'nul-payout' },
        ),
        'metadata',
      );
      expectInvalid(
        await api.post('/v1/webhook-endpoints', direct, {
          url: 'https://8.8.8.8/hooks',
          description: '\u0000',
        }),
        'description',
      );
    });
  });

  describe('lone UTF-16 surrogates', () => {
    it('are refused in a metadata value and a description; a pair (an emoji) is stored intact', async () => {
      expectInvalid(
        await api.post('/v1/sub-merchants', psp, {
          code: 'surrogate',
          name: 'Surrogate',
          metadata: { note: 'x\ud800' },
        }),
        'metadata.note',
      );
      expectInvalid(
        await api.post('/v1/webhook-endpoints', direct, {
          url: 'https://8.8.8.8/hooks',
          description: '\udc00 alone',
        }),
        'description',
      );
      const { body } = await api
        .post('/v1/sub-merchants', psp, {
          code: 'emoji',
          name: 'Café \ud83d\ude00',
          metadata: { note: '\ud83d\udcb8' },
        })
        .expect(201);
      expect(body).toMatchObject({ name: 'Café 😀', metadata: { note: '💸' } });
    });
  });

  describe('nesting depth', () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < depth; i += 1) value = { a: value };
      return value;
    };

    it('refuses a body nested deeper than 32 levels, naming the field, before validation', async () => {
      const response = await api.post('/v1/sub-merchants', psp, {
        code: 'deep',
        name: 'Deep',
        metadata: nested(40),
      });
      expectInvalid(response, 'metadata');
      expect(response.body.error.message).toBe('metadata is nested more than 32 levels deep.');
      expect(await api.count('sub_merchants', "code = 'deep'")).toBe(0);
    });

    it('refuses 20,000 levels of arrays without crashing', async () => {
      const payload = `{"metadata":${'['.repeat(20000)}${']'.repeat(20000)}}`;
      const response = await request(api.http)
        .post('/v1/sub-merchants')
        .set('Authorization', `Bearer ${psp.apiKey}`)
        .set('Content-Type', 'application/json')
        .send(payload);
      expectInvalid(response, 'metadata');
    });
  });

  describe('names the validation pipe would drop', () => {
    const unknownParameter = (name: string) => ({
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: `Unknown parameter: ${name}.`,
        param: name,
        request_id: expect.any(String),
      },
    });
    const answer = (response: request.Response) => ({
      status: response.status,
      error: response.body.error,
    });

    it.each(['__proto__', 'constructor', 'prototype'])(
      'a query parameter %s is refused like any unknown one',
      async (name) => {
        for (const list of ['/v1/checkout/sessions', '/v1/balances']) {
          expect(answer(await api.get(`${list}?foo=1`, direct))).toEqual(unknownParameter('foo'));
          expect(answer(await api.get(`${list}?${name}=1`, direct))).toEqual(
            unknownParameter(name),
          );
        }
      },
    );

    it('in a JSON body, at the top and as a metadata key, creating nothing', async () => {
      const post = (payload: string) =>
        request(api.http)
          .post('/v1/sub-merchants')
          .set('Authorization', `Bearer ${psp.apiKey}`)
          .set('Content-Type', 'application/json')
          .send(payload);
      expectInvalid(await post('{"code":"proto","name":"P","__proto__":{"x":1}}'), '__proto__');
      expectInvalid(
        await post('{"code":"proto","name":"P","metadata":{"constructor":"x"}}'),
        'metadata.constructor',
      );
      expect(await api.count('sub_merchants', "code = 'proto'")).toBe(0);
    });
  });

  describe('bad percent-encoding names the parameter and what is wrong', () => {
    it.each([
      [
        '/v1/checkout/sessions/%E0%A4%A',
        'id',
        "'%A' is not a % followed by two hexadecimal digits",
      ],
      ['/v1/payouts/po_%ZZ', 'id', "'%ZZ' is not a % followed by two hexadecimal digits"],
      ['/v1/events/%ED%A0%80/deliveries', 'id', 'the bytes %ED%A0%80 are not UTF-8'],
      ['/v1/networks/%FF', 'name', 'the bytes %FF are not UTF-8'],
      ['/v1/checkout/sessions?search_text=%ZZ', 'search_text', "'%ZZ' is not a % followed by"],
      ['/v1/payouts?limit=1&search_text=%E0%A4', 'search_text', 'the bytes %E0%A4 are not UTF-8'],
    ])('GET %s', async (path, param, what) => {
      const response = await api.get(path, direct);
      expectInvalid(response, param);
      expect(response.body.error.message).toContain(
        `${param} is not valid percent-encoding: ${what}`,
      );
    });

    it('in a sub-merchant code and the hosted page id, before authentication', async () => {
      expectInvalid(await api.get('/v1/sub-merchants/shop%zz', psp), 'code');
      expectInvalid(await request(api.http).get('/v1/payouts/%zz'), 'id');
      expectInvalid(await request(api.http).get('/checkout/cs_%E0/state'), 'id');
      expectInvalid(await request(api.http).get('/checkout/cs_1?lang=%zz'), 'lang');
    });

    it('outside any route parameter: a 400 that says so, naming nothing', async () => {
      const response = await api.get('/v1/%zz/sessions', direct);
      expect({ status: response.status, error: response.body.error }).toEqual({
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message:
            "The path is not valid percent-encoding: '%zz' is not a % followed by two hexadecimal digits.",
          request_id: expect.any(String),
        },
      });
    });
  });

  describe('date-time parameters are RFC 3339 instants with an offset', () => {
    const REFUSED = [
      '2026-W45',
      '2026-123',
      '20261101T100000Z',
      '2026-11-01',
      '2026-11-01T10:00:00',
      '2026-11-01T10:00Z',
      '2026-11-01t10:00:00z',
      '2026-11-01T10:00:00+2:00',
      '2026-02-30T10:00:00Z',
      '2026-11-01T24:00:00Z',
      '2026-11-01 10:00:00Z',
      '+275760-09-13T00:00:00Z',
    ];
    const ACCEPTED = [
      '2026-11-01T10:00:00Z',
      '2026-11-01T10:00:00.123456Z',
      '2026-11-01T10:00:00+05:30',
    ];
    const query = (name: string, value: string) => `${name}=${encodeURIComponent(value)}`;

    it('on every list: other ISO 8601 forms are a 400 naming the parameter', async () => {
      for (const value of REFUSED) {
        for (const list of ['/v1/checkout/sessions', '/v1/payouts', '/v1/events']) {
          expectInvalid(
            await api.get(`${list}?${query('created_after', value)}`, direct),
            'created_after',
          );
        }
        expectInvalid(
          await api.get(`/v1/unmatched-transfers?${query('created_before', value)}`, direct),
          'created_before',
        );
      }
      for (const value of ACCEPTED) {
        await api.get(`/v1/checkout/sessions?${query('created_after', value)}`, direct).expect(200);
      }
    });

    it('on a webhook recovery: since and until', async () => {
      const { body: endpoint } = await api
        .post('/v1/webhook-endpoints', direct, { url: 'https://8.8.8.8/hooks' })
        .expect(201);
      const recover = `/v1/webhook-endpoints/${endpoint.id}/recover`;
      expectInvalid(await api.post(recover, direct, { since: '2026-W45' }), 'since');
      expectInvalid(
        await api.post(recover, direct, { since: '2026-11-01T00:00:00Z', until: '2026-123' }),
        'until',
      );
      expectInvalid(await api.post(recover, direct, { since: '2026-11-01' }), 'since');
      await api.post(recover, direct, { since: '2026-11-01T00:00:00+01:00' }).expect(202);
    });
  });
});
