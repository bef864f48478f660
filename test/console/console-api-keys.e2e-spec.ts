import type { Request } from 'express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeysService, AuthenticatedMerchant, ROLE_PERMISSIONS } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException } from '@app/common';
import { ApiKeysController } from '../../libs/console/src/api-keys/api-keys.controller';
import { TwoFactorVerifier } from '../../libs/console/src/two-factor/two-factor-verifier';
import {
  auditOf,
  ConsoleMember,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const KEYS = '/console/api/api-keys';
const SESSIONS = '/v1/checkout/sessions';

describe('Console API keys page (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Keys Shop' });
    owner = await signedInMember(api, merchant, 'owner');
  });

  afterAll(() => api.close());

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const bearer = (key: string) =>
    request(api.http).get(SESSIONS).set('Authorization', `Bearer ${key}`);

  const createKey = (body: object) => owner.agent.post(KEYS).set(unsafe(owner)).send(body);

  it('creates a secret key: 201 with the secret once, then listed without it, audited without it', async () => {
    const created = await createKey({ name: 'Shop backend' }).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'Shop backend',
      scopes: null,
      key_hint: `${created.body.api_key.slice(0, 8)}…${created.body.api_key.slice(-4)}`,
      api_key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{43}$/),
      livemode: false,
      created_at: expect.any(String),
      expires_at: null,
    });
    const secret = created.body.api_key as string;
    await bearer(secret).expect(200);
    // Written off the request's path: it lands shortly after.
    await waitFor(
      async () =>
        (await api.count('api_keys', 'id = $1 AND last_used_at IS NOT NULL', [created.body.id])) ===
        1,
      10_000,
      'last_used_at written',
    );
    const listed = await owner.agent.get(KEYS).expect(200);
    expect(listed.body.find((key: { id: string }) => key.id === created.body.id)).toEqual({
      id: created.body.id,
      name: 'Shop backend',
      scopes: null,
      key_hint: created.body.key_hint,
      livemode: false,
      status: 'active',
      created_at: created.body.created_at,
      last_used_at: expect.any(String),
      expires_at: null,
      revoked_at: null,
      rolled_from_key_id: null,
    });
    expect(listed.text).not.toContain(secret.slice(8, -4));
    const [entry] = await auditOf(api, owner.userId);
    expect(entry).toMatchObject({
      action: 'api_key.created',
      merchant_id: merchant.id,
      details: { name: 'Shop backend', scopes: null, key_hint: created.body.key_hint },
    });
    expect(JSON.stringify(await auditOf(api, owner.userId))).not.toContain(secret.slice(8, -4));
    const [row] = await api.dataSource.query(
      `SELECT created_by_user_id FROM api_keys WHERE id = $1`,
      [created.body.id],
    );
    expect(row.created_by_user_id).toBe(owner.userId);
  });

  it('creates a restricted key that is refused outside its scopes', async () => {
    const created = await createKey({ scopes: ['payouts:write', 'checkout_sessions:read'] }).expect(
      201,
    );
    expect(created.body).toMatchObject({
      name: 'Restricted key',
      scopes: ['checkout_sessions:read', 'payouts:write'],
    });
    await bearer(created.body.api_key).expect(200);
    const refused = await request(api.http)
      .get('/v1/balances')
      .set('Authorization', `Bearer ${created.body.api_key}`)
      .expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'insufficient_scope',
      message: 'This API key does not have the scope balances:read.',
    });
  });

  it('refuses unknown, console-only or empty scopes, and unknown fields, creating nothing', async () => {
    const before = await api.count('api_keys', 'merchant_id = $1', [merchant.id]);
    for (const body of [
      { scopes: ['payouts:write', 'api_keys:write'] },
      { scopes: [] },
      { scopes: 'payouts:write' },
      { name: '' },
      { livemode: true },
    ]) {
      const refused = await createKey(body).expect(400);
      expect(refused.body.error.code).toBe('parameter_invalid');
    }
    expect(await api.count('api_keys', 'merchant_id = $1', [merchant.id])).toBe(before);
  });

  it("rolls a key: a new secret with the same name and scopes, the old one's expiry, audited", async () => {
    const old = await createKey({ name: 'To roll', scopes: ['checkout_sessions:read'] }).expect(
      201,
    );
    const rolled = await owner.agent
      .post(`${KEYS}/${old.body.id}/roll`)
      .set(unsafe(owner))
      .send({ expires_in: 'now' })
      .expect(200);
    expect(rolled.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'To roll',
      scopes: ['checkout_sessions:read'],
      key_hint: expect.any(String),
      api_key: expect.stringMatching(/^sk_test_/),
      livemode: false,
      created_at: expect.any(String),
      expires_at: null,
      previous_key: expect.objectContaining({
        id: old.body.id,
        status: 'expired',
        expires_at: expect.any(String),
      }),
    });
    expect(rolled.body.id).not.toBe(old.body.id);
    await bearer(old.body.api_key).expect(401);
    await bearer(rolled.body.api_key).expect(200);
    const [entry] = await auditOf(api, owner.userId);
    expect(entry).toMatchObject({
      action: 'api_key.rolled',
      details: { expires_in: 'now', new_key_id: rolled.body.id },
    });
    const missing = await owner.agent
      .post(`${KEYS}/${old.body.id}/roll`)
      .set(unsafe(owner))
      .send({})
      .expect(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'expires_in' });
    const again = await owner.agent
      .post(`${KEYS}/${old.body.id}/roll`)
      .set(unsafe(owner))
      .send({ expires_in: '1h' })
      .expect(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('revokes a key at once; revoking again changes nothing', async () => {
    const key = await createKey({ name: 'To revoke' }).expect(201);
    await bearer(key.body.api_key).expect(200);
    const revoked = await owner.agent
      .post(`${KEYS}/${key.body.id}/revoke`)
      .set(unsafe(owner))
      .send({})
      .expect(200);
    expect(revoked.body).toMatchObject({
      id: key.body.id,
      status: 'revoked',
      revoked_at: expect.any(String),
    });
    expect(revoked.body.api_key).toBeUndefined();
    await bearer(key.body.api_key).expect(401);
    const entries = (await auditOf(api, owner.userId)).length;
    await owner.agent.post(`${KEYS}/${key.body.id}/revoke`).set(unsafe(owner)).send({}).expect(200);
    expect((await auditOf(api, owner.userId)).length).toBe(entries);
  });

  it("answers 404 for another merchant's key, which keeps working", async () => {
    const other = await api.createMerchant({ name: 'Other Keys Shop' });
    for (const action of ['roll', 'revoke']) {
      const response = await owner.agent
        .post(`${KEYS}/${other.apiKeyId}/${action}`)
        .set(unsafe(owner))
        .send({ expires_in: 'now' })
        .expect(404);
      expect(response.body.error.code).toBe('resource_missing');
    }
    const listed = await owner.agent.get(KEYS).expect(200);
    expect(listed.body.map((key: { id: string }) => key.id)).not.toContain(other.apiKeyId);
    await api.get(SESSIONS, other).expect(200);
  });

  it('needs the CSRF token for changes', async () => {
    const refused = await owner.agent.post(KEYS).set(SAME_ORIGIN).send({}).expect(403);
    expect(refused.body.error.code).toBe('csrf_failed');
  });

  it("checks the console role: a viewer neither lists keys nor creates payouts, a developer manages keys within its role's scopes", async () => {
    const viewer = await signedInMember(api, merchant, 'viewer');
    const list = await viewer.agent.get(KEYS).expect(403);
    expect(list.body.error).toEqual({
      type: 'permission_error',
      code: 'permission_denied',
      message: 'Your role (viewer) does not allow api_keys:read.',
      request_id: list.headers['request-id'],
    });
    const payout = await viewer.agent
      .post('/v1/payouts')
      .set({ ...unsafe(viewer), 'Idempotency-Key': 'viewer-payout' })
      .send({})
      .expect(403);
    expect(payout.body.error.message).toBe('Your role (viewer) does not allow payouts:write.');
    await viewer.agent.get('/v1/payouts').expect(200);

    const developer = await signedInMember(api, merchant, 'developer');
    await developer.agent.get(KEYS).expect(200);
    await developer.agent
      .post(KEYS)
      .set(unsafe(developer))
      .send({ name: 'Dev', scopes: ['webhook_endpoints:write', 'events:read'] })
      .expect(201);
    // A secret key holds every API scope, payouts:write among them: beyond a developer.
    await developer.agent.post(KEYS).set(unsafe(developer)).send({ name: 'Dev' }).expect(403);
  });

  it('in the sandbox, creates and rolls a key without a code (testnet money only, docs/console.md)', async () => {
    const created = await createKey({ name: 'Sandbox, no code' }).expect(201);
    expect(created.body.api_key).toMatch(/^sk_test_/);
    await owner.agent
      .post(`${KEYS}/${created.body.id}/roll`)
      .set(unsafe(owner))
      .send({ expires_in: 'now' })
      .expect(200);
    const asked = (await auditOf(api, owner.userId)).filter((entry) =>
      entry.action.startsWith('two_factor.'),
    );
    expect(asked).toEqual([]);
  });

  it('in production, asks for a fresh two-factor code to create or roll a key, each code once', async () => {
    // A production deployment needs mainnet settings and Secure cookies over https; its
    // controller is this one with config.livemode set, called as the router would.
    const production = new ApiKeysController(
      api.app.get(ApiKeysService),
      api.app.get(TwoFactorVerifier),
      api.app.get(DataSource),
      { ...api.app.get<AppConfig>(APP_CONFIG), livemode: true },
    );
    const caller: AuthenticatedMerchant = {
      merchantId: merchant.id,
      kind: 'direct',
      name: merchant.name,
      logoUrl: null,
      livemode: true,
      apiKeyId: null,
      actor: { type: 'console_user', userId: owner.userId, sessionId: 'test', role: 'owner' },
      permissions: ROLE_PERMISSIONS.owner,
    };
    const http = { headers: {}, ip: '203.0.113.7' } as Request;
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: ApiException) => ({ code: error.code, param: error.param }),
      );
    const before = await api.count('api_keys', 'merchant_id = $1', [merchant.id]);
    expect(await refusal(production.create(caller, { name: 'Live' }, http))).toEqual({
      code: 'two_factor_required',
      param: 'two_factor_code',
    });
    expect(
      await refusal(production.create(caller, { name: 'Live', two_factor_code: '000000' }, http)),
    ).toEqual({ code: 'parameter_invalid', param: 'two_factor_code' });
    expect(await api.count('api_keys', 'merchant_id = $1', [merchant.id])).toBe(before);

    // The next time step's code: enrolment used the current one, and a step is accepted once.
    const code = totpCode(owner.secret, 1);
    const created = await production.create(caller, { name: 'Live', two_factor_code: code }, http);
    expect(created.name).toBe('Live');
    expect(
      await refusal(production.create(caller, { name: 'Again', two_factor_code: code }, http)),
    ).toEqual({ code: 'parameter_invalid', param: 'two_factor_code' });
    expect(await refusal(production.roll(caller, created.id, { expires_in: '1h' }, http))).toEqual({
      code: 'two_factor_required',
      param: 'two_factor_code',
    });
    expect(await api.count('api_keys', 'merchant_id = $1', [merchant.id])).toBe(before + 1);
    const entries = await auditOf(api, owner.userId);
    expect(entries.find((entry) => entry.action === 'api_key.created')).toMatchObject({
      details: { name: 'Live' },
    });
    // The wrong code, committed although its request was refused. The reused one is answered
    // as used and not counted: it proves the secret is known (a double submit), it is no guess.
    expect(entries.filter((entry) => entry.action === 'two_factor.fresh_code_failed')).toEqual([
      expect.objectContaining({ merchant_id: merchant.id }),
    ]);
  });
});
