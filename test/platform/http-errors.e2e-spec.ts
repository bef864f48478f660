import request from 'supertest';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';

describe('HTTP-level errors share the envelope and carry a Request-Id', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant();
  });

  afterAll(() => api.close());

  const post = (payload: string) =>
    request(api.http)
      .post(SESSIONS)
      .set('Authorization', `Bearer ${merchant.apiKey}`)
      .set('Content-Type', 'application/json')
      .send(payload);

  it('answers malformed JSON with 400 parameter_invalid', async () => {
    const response = await post('{"pricing_amount": "10",').expect(400);
    expect(response.body).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: 'The request body is not valid JSON.',
        request_id: response.headers['request-id'],
      },
    });
    expect(response.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{17}$/);
  });

  it('answers a body over 64 kB with 413 and creates nothing', async () => {
    const before = await api.count('checkout_sessions');
    const big = JSON.stringify({ client_reference_id: 'x'.repeat(70 * 1024) });
    const response = await post(big).expect(413);
    expect(response.body.error).toMatchObject({
      code: 'request_too_large',
      type: 'invalid_request_error',
    });
    expect(await api.count('checkout_sessions')).toBe(before);
  });

  it('answers an unknown route with 404 route_not_found', async () => {
    const response = await api.get('/v1/nothing-here', merchant).expect(404);
    expect(response.body.error).toMatchObject({ code: 'route_not_found' });
    expect(response.headers['request-id']).toMatch(/^req_/);
  });

  it('gives every response its own Request-Id', async () => {
    const a = await api.get(SESSIONS, merchant).expect(200);
    const b = await api.get(SESSIONS, merchant).expect(200);
    expect(a.headers['request-id']).toMatch(/^req_/);
    expect(a.headers['request-id']).not.toBe(b.headers['request-id']);
  });

  it('never leaks a stack trace or internals on a server error', async () => {
    // Break the table for a moment: the query fails inside the service.
    await api.dataSource.query('ALTER TABLE checkout_sessions RENAME TO checkout_sessions_hidden');
    try {
      const response = await api.get(SESSIONS, merchant).expect(500);
      expect(response.body).toEqual({
        error: {
          type: 'api_error',
          code: 'api_error',
          message: 'An internal error occurred. Retry later.',
          request_id: response.headers['request-id'],
        },
      });
    } finally {
      await api.dataSource.query(
        'ALTER TABLE checkout_sessions_hidden RENAME TO checkout_sessions',
      );
    }
  });

  it('sends no CORS headers on the API and no x-powered-by', async () => {
    const response = await api
      .get(SESSIONS, merchant)
      .set('Origin', 'https://evil.example')
      .expect(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});
