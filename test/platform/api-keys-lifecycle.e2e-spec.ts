import { ApiException } from '@app/common';
import { ApiKeyRevocations, ApiKeysService, ApiScope } from '@app/auth';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';

describe('API key lifecycle: roll, expiry, last use, list', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let keys: ApiKeysService;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Rolling Shop' });
    keys = api.app.get(ApiKeysService);
  });

  afterAll(() => api.close());

  async function newKey(scopes: ApiScope[] | null): Promise<TestMerchant> {
    const key = await keys.create({ merchantId: merchant.id, name: 'Backend', scopes });
    return { ...merchant, apiKey: key.api_key, apiKeyId: key.id };
  }

  it("rolls with 'now': the old key stops at once, the new one has its name and scopes", async () => {
    const old = await newKey(['checkout_sessions:read']);
    await api.get(SESSIONS, old).expect(200);
    const rolled = await keys.roll({
      apiKeyId: old.apiKeyId,
      merchantId: merchant.id,
      expiresIn: 'now',
    });
    expect(rolled.key).toMatchObject({
      name: 'Backend',
      scopes: ['checkout_sessions:read'],
      api_key: expect.stringMatching(/^sk_test_/),
      expires_at: null,
    });
    expect(rolled.previous).toMatchObject({ id: old.apiKeyId, status: 'expired' });
    // Cached a moment ago on this process: refused all the same.
    const refused = await api.get(SESSIONS, old).expect(401);
    expect(refused.body.error.code).toBe('authentication_failed');
    const renewed = { ...old, apiKey: rolled.key.api_key, apiKeyId: rolled.key.id };
    await api.get(SESSIONS, renewed).expect(200);
    // The scopes came along: still restricted.
    await api.get('/v1/payouts', renewed).expect(403);
    const [row] = await api.dataSource.query(
      `SELECT rolled_from_key_id, expires_at FROM api_keys WHERE id = $1`,
      [rolled.key.id],
    );
    expect(row).toEqual({ rolled_from_key_id: old.apiKeyId, expires_at: null });
  });

  it("rolls with '1h': the old key works until its expires_at, then answers 401", async () => {
    const old = await newKey(null);
    const before = Date.now();
    const rolled = await keys.roll({
      apiKeyId: old.apiKeyId,
      merchantId: merchant.id,
      expiresIn: '1h',
    });
    const expiresAt = Date.parse(rolled.previous.expires_at!);
    expect(expiresAt - before).toBeGreaterThan(3_590_000);
    expect(expiresAt - before).toBeLessThan(3_610_000);
    expect(rolled.previous.status).toBe('active');
    await api.get(SESSIONS, old).expect(200);
    await api.get(SESSIONS, { ...old, apiKey: rolled.key.api_key }).expect(200);
    // An hour is long for a test: bring the expiry close (as the clock would), then watch it pass.
    await api.dataSource.query(
      `UPDATE api_keys SET expires_at = now() + interval '4 seconds' WHERE id = $1`,
      [old.apiKeyId],
    );
    await api.get(SESSIONS, old).expect(200);
    await waitFor(
      async () => (await api.get(SESSIONS, old)).status === 401,
      30_000,
      'the rolled key refused',
    );
    const [{ passed }] = await api.dataSource.query(
      `SELECT expires_at <= now() AS passed FROM api_keys WHERE id = $1`,
      [old.apiKeyId],
    );
    expect(passed).toBe(true);
  });

  it('never extends a key already rolled, and refuses to roll a revoked or expired key', async () => {
    const old = await newKey(null);
    const first = await keys.roll({
      apiKeyId: old.apiKeyId,
      merchantId: merchant.id,
      expiresIn: '1h',
    });
    const second = await keys.roll({
      apiKeyId: old.apiKeyId,
      merchantId: merchant.id,
      expiresIn: '7d',
    });
    expect(second.previous.expires_at).toBe(first.previous.expires_at);
    await keys.roll({ apiKeyId: old.apiKeyId, merchantId: merchant.id, expiresIn: 'now' });
    const expired = await keys
      .roll({ apiKeyId: old.apiKeyId, merchantId: merchant.id, expiresIn: '1h' })
      .catch((error: ApiException) => error);
    expect(expired).toMatchObject({ code: 'invalid_state' });
    const other = await api.createMerchant({ name: 'Someone else' });
    const foreign = await keys
      .roll({ apiKeyId: other.apiKeyId, merchantId: merchant.id, expiresIn: 'now' })
      .catch((error: ApiException) => error);
    expect(foreign).toMatchObject({ code: 'resource_missing' });
    await api.get(SESSIONS, other).expect(200);
    expect(await keys.revoke(other.apiKeyId, { merchantId: merchant.id })).toBe(false);
    await api.get(SESSIONS, other).expect(200);
  });

  it('records last use off the request path, and lists keys without their secret', async () => {
    const key = await newKey(['balances:read']);
    await api.get('/v1/balances', key).expect(200);
    await waitFor(
      async () =>
        (
          await api.dataSource.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [
            key.apiKeyId,
          ])
        )[0].last_used_at !== null,
      10_000,
      'last_used_at written',
    );
    await keys.revoke(key.apiKeyId);
    const listed = await keys.list(merchant.id);
    expect(listed.map((entry) => entry.created_at)).toEqual(
      [...listed.map((entry) => entry.created_at)].sort().reverse(),
    );
    expect(listed.find((entry) => entry.id === key.apiKeyId)).toEqual({
      id: key.apiKeyId,
      name: 'Backend',
      scopes: ['balances:read'],
      key_hint: `${key.apiKey.slice(0, 8)}…${key.apiKey.slice(-4)}`,
      livemode: false,
      status: 'revoked',
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      expires_at: null,
      revoked_at: expect.any(String),
      rolled_from_key_id: null,
    });
    expect(JSON.stringify(listed)).not.toContain(key.apiKey.slice(8, -4));
  });
});

describe('API key revocation across API processes', () => {
  let first: TestApi;
  let second: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    // Two API processes on one database, as behind a load balancer.
    [first, second] = await Promise.all([TestApi.start(), TestApi.start()]);
    merchant = await first.createMerchant({ name: 'Two Processes' });
  });

  afterAll(() => Promise.all([first?.close(), second?.close()]));

  afterEach(() => jest.restoreAllMocks());

  it('both processes listen for revocations from startup', () => {
    expect(first.app.get(ApiKeyRevocations).listening).toBe(true);
    expect(second.app.get(ApiKeyRevocations).listening).toBe(true);
  });

  it("a key revoked through one process leaves the other's cache by notification, and is refused there", async () => {
    const secondKeys = second.app.get(ApiKeysService);
    const forgotten: string[] = [];
    const forget = secondKeys.forget.bind(secondKeys);
    // Observes (and still performs) what the second process's listener does.
    jest.spyOn(secondKeys, 'forget').mockImplementation((id: string) => {
      forgotten.push(id);
      forget(id);
    });
    await second.get(SESSIONS, merchant).expect(200);
    expect(secondKeys.isCached(merchant.apiKeyId)).toBe(true);

    expect(await first.app.get(ApiKeysService).revoke(merchant.apiKeyId)).toBe(true);

    // Only the LISTEN path calls forget on the second process: it did not revoke anything.
    await waitFor(async () => forgotten.includes(merchant.apiKeyId), 30_000, 'notification');
    expect(secondKeys.isCached(merchant.apiKeyId)).toBe(false);
    const refused = await second.get(SESSIONS, merchant).expect(401);
    expect(refused.body.error.code).toBe('authentication_failed');
    await first.get(SESSIONS, merchant).expect(401);
  });

  it("a roll with 'now' through one process is refused by the other on its next request", async () => {
    const keys = first.app.get(ApiKeysService);
    const issued = await keys.create({ merchantId: merchant.id, name: 'Rolled elsewhere' });
    const old = { ...merchant, apiKey: issued.api_key, apiKeyId: issued.id };
    await second.get(SESSIONS, old).expect(200);
    const rolled = await keys.roll({
      apiKeyId: old.apiKeyId,
      merchantId: merchant.id,
      expiresIn: 'now',
    });
    await waitFor(
      async () => !second.app.get(ApiKeysService).isCached(old.apiKeyId),
      30_000,
      'eviction on the second process',
    );
    await second.get(SESSIONS, old).expect(401);
    await second.get(SESSIONS, { ...old, apiKey: rolled.key.api_key }).expect(200);
  });

  it('a listener that lost its connection reconnects, forgets what it may have missed, and hears again', async () => {
    const revocations = second.app.get(ApiKeyRevocations);
    const secondKeys = second.app.get(ApiKeysService);
    const lostPid = revocations.backendPid;
    expect(lostPid).not.toBeNull();
    const forgetAll = jest.spyOn(secondKeys, 'forgetAll');
    // As a database failover or a killed connection would.
    await first.dataSource.query(`SELECT pg_terminate_backend($1)`, [lostPid]);
    await waitFor(
      async () => revocations.listening && revocations.backendPid !== lostPid,
      30_000,
      'the listener reconnected',
    );
    expect(forgetAll).toHaveBeenCalled();

    const keys = first.app.get(ApiKeysService);
    const issued = await keys.create({ merchantId: merchant.id, name: 'After reconnect' });
    const key = { ...merchant, apiKey: issued.api_key, apiKeyId: issued.id };
    await second.get(SESSIONS, key).expect(200);
    const forget = jest.spyOn(secondKeys, 'forget');
    await keys.revoke(key.apiKeyId);
    await waitFor(
      async () => forget.mock.calls.some(([id]) => id === key.apiKeyId),
      30_000,
      'notification after reconnecting',
    );
    await second.get(SESSIONS, key).expect(401);
  });
});
