import request from 'supertest';
import { ApiKeysService, hashApiKey, keyHint } from '@app/auth';
import { ID_PREFIX, newId } from '@app/common';
import { overrideEnvironment } from '../support/environment';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';

describe('Authentication', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant();
  });

  afterAll(() => api.close());

  const withHeader = (value?: string) => {
    const call = request(api.http).get(SESSIONS).set('X-Forwarded-For', '203.0.113.9');
    return value === undefined ? call : call.set('Authorization', value);
  };

  it('accepts a valid sandbox key', async () => {
    await withHeader(`Bearer ${merchant.apiKey}`).expect(200);
  });

  it('stores only a SHA-256 hash of the key', async () => {
    const rows = await api.dataSource.query(
      `SELECT key_hash, key_hint FROM api_keys WHERE id = $1`,
      [merchant.apiKeyId],
    );
    expect(rows[0].key_hash).toHaveLength(32);
    expect(JSON.stringify(rows)).not.toContain(merchant.apiKey.slice(8));
    expect(rows[0].key_hint).toBe(`${merchant.apiKey.slice(0, 8)}…${merchant.apiKey.slice(-4)}`);
  });

  it.each([
    ['missing', undefined],
    ['not bearer', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['empty bearer', 'Bearer '],
    ['malformed key', 'Bearer sk_test_short'],
    ['unknown key', `Bearer sk_test_${'A'.repeat(43)}`],
    ['lower-case scheme with extra parts', `bearer x y`],
  ])('refuses a %s key with 401 authentication_failed', async (_name, header) => {
    const response = await withHeader(header).expect(401);
    expect(response.body).toEqual({
      error: {
        type: 'authentication_error',
        code: 'authentication_failed',
        message: expect.any(String),
        param: 'Authorization',
        request_id: response.headers['request-id'],
      },
    });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a production key in the sandbox with 401 environment_mismatch', async () => {
    const response = await withHeader(`Bearer sk_live_${'B'.repeat(43)}`).expect(401);
    expect(response.body.error).toMatchObject({
      type: 'authentication_error',
      code: 'environment_mismatch',
    });
    expect(response.body.error.message).toContain('sk_test_');
  });

  it('refuses a key whose row was issued for the other environment', async () => {
    // The prefix says sandbox, the row says production: a key counts for the environment it was
    // issued in (api_keys.livemode), as every object of a deployment does.
    const key = `sk_test_${'D'.repeat(43)}`;
    await api.dataSource.query(
      `INSERT INTO api_keys (id, merchant_id, key_hash, key_hint, livemode)
       VALUES ($1, $2, $3, $4, true)`,
      [newId(ID_PREFIX.apiKey), merchant.id, hashApiKey(key), keyHint(key)],
    );
    const response = await withHeader(`Bearer ${key}`).expect(401);
    expect(response.body.error.code).toBe('authentication_failed');
    // A key issued here, in the sandbox, still works.
    const issued = await api.app.get(ApiKeysService).create(merchant.id);
    expect(issued.livemode).toBe(false);
    await withHeader(`Bearer ${issued.api_key}`).expect(200);
  });

  it('refuses a revoked key', async () => {
    const doomed = await api.createMerchant({ name: 'Revoked' });
    await api.get(SESSIONS, doomed).expect(200);
    expect(await api.app.get(ApiKeysService).revoke(doomed.apiKeyId)).toBe(true);
    const response = await api.get(SESSIONS, doomed).expect(401);
    expect(response.body.error.code).toBe('authentication_failed');
  });

  it('refuses a key whose expires_at has passed (a rolled key), as a revoked one', async () => {
    const rolled = await api.createMerchant({ name: 'Expired' });
    await api.get(SESSIONS, rolled).expect(200);
    await api.dataSource.query(`UPDATE api_keys SET expires_at = now() WHERE id = $1`, [
      rolled.apiKeyId,
    ]);
    // Changed behind the service's back (no notification): the cache's TTL bounds the wait.
    await waitFor(
      async () => (await api.get(SESSIONS, rolled)).status === 401,
      10_000,
      'expired key refused',
    );
    const response = await api.get(SESSIONS, rolled).expect(401);
    expect(response.body.error.message).toBe('Invalid API key: unknown or revoked.');
  });

  it('lets a merchant hold several keys and revoke one without the other', async () => {
    const keys = api.app.get(ApiKeysService);
    const second = await keys.create(merchant.id);
    const secondMerchant = { ...merchant, apiKey: second.api_key, apiKeyId: second.id };
    await api.get(SESSIONS, secondMerchant).expect(200);
    await keys.revoke(second.id);
    await api.get(SESSIONS, secondMerchant).expect(401);
    await api.get(SESSIONS, merchant).expect(200);
  });

  it('never echoes the key in an error', async () => {
    const key = `sk_test_${'C'.repeat(43)}`;
    const response = await withHeader(`Bearer ${key}`).expect(401);
    expect(JSON.stringify(response.body)).not.toContain(key);
  });
});

describe('Failed-authentication rate limit', () => {
  let api: TestApi;

  beforeAll(async () => {
    // The production limit, and a client of this suite's own (the counters live in Redis).
    const environment = overrideEnvironment({
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '30',
      TRUST_PROXY: 'loopback',
    });
    try {
      api = await TestApi.start();
    } finally {
      environment.restore();
    }
  });

  afterAll(() => api.close());

  it('refuses an address with 429 and Retry-After after 30 failures in a minute, but never a valid key', async () => {
    const merchant = await api.createMerchant();
    const client = (authorization: string) =>
      request(api.http)
        .get(SESSIONS)
        .set('X-Forwarded-For', '203.0.113.30')
        .set('Authorization', authorization);
    for (let i = 0; i < 30; i++) await client('Bearer nope').expect(401);
    const blocked = await client('Bearer nope').expect(429);
    expect(blocked.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    await client(`Bearer ${merchant.apiKey}`).expect(200);
  });
});
