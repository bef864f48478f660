import { IdempotencyService } from '@app/idempotency';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const body = { pricing_amount: '25', pricing_currency: 'USD', currency: 'USDT', network: 'TRON' };

describe('Idempotency on session creation', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant();
  });

  afterAll(() => api.close());

  const sessionsOf = (who: TestMerchant) =>
    api.count('checkout_sessions', 'merchant_id = $1', [who.id]);

  it('replays the stored response for the same key and body', async () => {
    const key = 'replay-' + Date.now();
    const first = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // Key order in the body does not make it a different request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const third = await api
      .post(SESSIONS, merchant, reordered, { 'Idempotency-Key': key })
      .expect(201);
    expect(third.body.id).toBe(first.body.id);
    expect(await api.count('checkout_sessions', 'id = $1', [first.body.id])).toBe(1);
  });

  it('refuses the same key with a different body with 409 and creates nothing', async () => {
    const key = 'conflict-' + Date.now();
    await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    const before = await sessionsOf(merchant);
    const { body: error } = await api
      .post(SESSIONS, merchant, { ...body, pricing_amount: '26' }, { 'Idempotency-Key': key })
      .expect(409);
    expect(error.error).toMatchObject({
      type: 'idempotency_error',
      code: 'idempotency_key_reused',
      param: 'Idempotency-Key',
    });
    expect(await sessionsOf(merchant)).toBe(before);
  });

  it('creates exactly one session for 20 concurrent requests with one key', async () => {
    const key = 'concurrent-' + Date.now();
    const before = await sessionsOf(merchant);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }),
      ),
    );
    expect(await sessionsOf(merchant)).toBe(before + 1);
    const created = responses.filter((response) => response.status === 201);
    const inProgress = responses.filter((response) => response.status === 409);
    expect(created.length + inProgress.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    for (const response of inProgress) {
      expect(response.body.error.code).toBe('idempotency_in_progress');
      expect(response.headers['retry-after']).toBe('1');
    }
    // Once the first has committed, the key replays.
    const after = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    expect(after.body.id).toBe(created[0].body.id);
  });

  it('scopes keys per merchant: the same key under two merchants is two sessions', async () => {
    const second = await api.createMerchant({ name: 'Second' });
    const key = 'shared-' + Date.now();
    const a = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    const b = await api.post(SESSIONS, second, body, { 'Idempotency-Key': key }).expect(201);
    expect(a.body.id).not.toBe(b.body.id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not store failures: a rejected request can be retried with the same key', async () => {
    const key = 'retry-after-error-' + Date.now();
    await api
      .post(SESSIONS, merchant, { ...body, network: 'BASE' }, { 'Idempotency-Key': key })
      .expect(422);
    const fixed = await api
      .post(
        SESSIONS,
        merchant,
        { ...body, network: 'BASE', currency: 'USDC' },
        { 'Idempotency-Key': key },
      )
      .expect(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores the key in the same transaction as the session', async () => {
    const key = 'atomic-' + Date.now();
    const { body: session } = await api
      .post(SESSIONS, merchant, body, { 'Idempotency-Key': key })
      .expect(201);
    const rows = await api.dataSource.query(
      `SELECT response_status, response_body->>'id' AS id, extract(epoch FROM expires_at - created_at)::int AS retention_seconds
         FROM idempotency_keys WHERE merchant_id = $1 AND idempotency_key = $2`,
      [merchant.id, key],
    );
    expect(rows).toEqual([{ response_status: 201, id: session.id, retention_seconds: 24 * 3600 }]);
  });

  it('treats an expired key as new', async () => {
    const key = 'expired-' + Date.now();
    const first = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    await api.dataSource.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`,
      [key],
    );
    const second = await api.post(SESSIONS, merchant, body, { 'Idempotency-Key': key }).expect(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('purges exactly the expired keys, in batches', async () => {
    await api.dataSource.query(`DELETE FROM idempotency_keys WHERE expires_at <= now()`);
    await api.dataSource.query(
      `INSERT INTO idempotency_keys (merchant_id, idempotency_key, endpoint, request_hash, response_status, response_body, expires_at)
       SELECT $1, 'purge-' || n, 'POST /x', 'h', 201, '{}', now() - interval '1 second' FROM generate_series(1, 5) n`,
      [merchant.id],
    );
    const live = await api.count('idempotency_keys', 'expires_at > now()');
    expect(await api.app.get(IdempotencyService).purgeExpired(2)).toBe(5);
    expect(await api.count('idempotency_keys', 'expires_at <= now()')).toBe(0);
    expect(await api.count('idempotency_keys', 'expires_at > now()')).toBe(live);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'clé-ü'],
  ])('refuses a %s key with 400', async (_name, key) => {
    const before = await sessionsOf(merchant);
    const { body: error } = await api
      .post(SESSIONS, merchant, body, { 'Idempotency-Key': key })
      .expect(400);
    expect(error.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    expect(await sessionsOf(merchant)).toBe(before);
  });
});
