import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { ApiKeysService, AuthenticatedMerchant, ConsoleRole, ROLE_PERMISSIONS } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ApiKeysController } from '../../libs/console/src/api-keys/api-keys.controller';
import { TwoFactorVerifier } from '../../libs/console/src/two-factor/two-factor-verifier';
import {
  auditOf,
  blockedOnMembership,
  ConsoleMember,
  refusalOf,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
  wrongCodeOf,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const KEYS = '/console/api/api-keys';

/**
 * Review of issue 25, findings 1, 3 and 11: a key never reaches beyond its creator's role, the
 * role is the one the membership holds when the change commits, and the fresh two-factor code a
 * live key asks for cannot be guessed without limit.
 */
describe('Console API keys: what a role may issue (issue 25 review)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;
  let developer: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Key Authority Shop' });
    owner = await signedInMember(api, merchant, 'owner');
    developer = await signedInMember(api, merchant, 'developer');
  });

  afterAll(() => api.close());

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const keyCount = () => api.count('api_keys', 'merchant_id = $1', [merchant.id]);

  it('refuses a developer a full secret key or a scope its role lacks, creating nothing', async () => {
    const before = await keyCount();
    const full = await developer.agent.post(KEYS).set(unsafe(developer)).send({}).expect(403);
    expect(full.body.error).toMatchObject({
      code: 'permission_denied',
      message: expect.stringMatching(/^Your role \(developer\) does not allow refunds:read/),
    });
    const payouts = await developer.agent
      .post(KEYS)
      .set(unsafe(developer))
      .send({ scopes: ['checkout_sessions:read', 'payouts:write'] })
      .expect(403);
    expect(payouts.body.error).toMatchObject({
      code: 'permission_denied',
      message: expect.stringContaining('payouts:write'),
    });
    expect(payouts.body.error.message).not.toContain('checkout_sessions:read');
    expect(await keyCount()).toBe(before);

    // Within the role: allowed.
    const allowed = await developer.agent
      .post(KEYS)
      .set(unsafe(developer))
      .send({ scopes: ['checkout_sessions:write', 'webhook_endpoints:write'] })
      .expect(201);
    expect(allowed.body.scopes).toEqual(['checkout_sessions:write', 'webhook_endpoints:write']);
  });

  it("refuses a developer to roll an owner's full key: no secret, the key keeps working", async () => {
    const full = await owner.agent
      .post(KEYS)
      .set(unsafe(owner))
      .send({ name: 'Owner backend' })
      .expect(201);
    const before = await keyCount();
    const refused = await developer.agent
      .post(`${KEYS}/${full.body.id}/roll`)
      .set(unsafe(developer))
      .send({ expires_in: '7d' })
      .expect(403);
    expect(refused.body.error.code).toBe('permission_denied');
    expect(refused.body.api_key).toBeUndefined();
    expect(await keyCount()).toBe(before);
    const [row] = await api.dataSource.query(
      `SELECT expires_at, revoked_at FROM api_keys WHERE id = $1`,
      [full.body.id],
    );
    expect(row).toEqual({ expires_at: null, revoked_at: null });
    // A key within the developer's role is rolled as before.
    const own = await developer.agent
      .post(KEYS)
      .set(unsafe(developer))
      .send({ scopes: ['events:read'] })
      .expect(201);
    await developer.agent
      .post(`${KEYS}/${own.body.id}/roll`)
      .set(unsafe(developer))
      .send({ expires_in: 'now' })
      .expect(200);
  });

  it('lets an admin, who holds every API scope, create a full key', async () => {
    const admin = await signedInMember(api, merchant, 'admin');
    const created = await admin.agent.post(KEYS).set(unsafe(admin)).send({}).expect(201);
    expect(created.body.scopes).toBeNull();
  });

  it('authorizes on the membership as it is at commit: a removal in flight wins', async () => {
    const admin = await signedInMember(api, merchant, 'admin', 'leaving-admin');
    const before = await keyCount();
    // The removal has deleted the membership but not yet committed when the request arrives:
    // the session still reads the admin role; the change must wait for the removal and see it.
    const removal = api.dataSource.createQueryRunner();
    await removal.connect();
    await removal.startTransaction();
    try {
      await removal.query(
        `DELETE FROM console_memberships WHERE user_id = $1 AND merchant_id = $2`,
        [admin.userId, merchant.id],
      );
      const inFlight = admin.agent.post(KEYS).set(unsafe(admin)).send({ name: 'Late' }).then();
      await waitFor(
        async () =>
          (await blockedOnMembership(api.dataSource, 'FOR SHARE')) || (await keyCount()) > before,
        30_000,
        'the key creation waits for the removal (or created a key)',
      );
      await removal.commitTransaction();
      const answer = await inFlight;
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('permission_denied');
    } finally {
      if (removal.isTransactionActive) await removal.rollbackTransaction();
      await removal.release();
    }
    expect(await keyCount()).toBe(before);
  });

  it('authorizes on the current role, not the one the session read: a demoted admin is refused', async () => {
    const admin = await signedInMember(api, merchant, 'admin', 'demoted-admin');
    await api.dataSource.query(
      `UPDATE console_memberships SET role = 'viewer' WHERE user_id = $1 AND merchant_id = $2`,
      [admin.userId, merchant.id],
    );
    const stale = sandboxController(api);
    const refusal = await refusalOf(
      stale.create(callerOf(merchant, admin, 'admin'), { name: 'Stale' }, HTTP),
    );
    expect(refusal).toMatchObject({ code: 'permission_denied' });
  });

  describe('in production, the fresh two-factor code', () => {
    it('is audited when wrong and refused (429 with Retry-After) after 5 failures in 15 minutes', async () => {
      const member = await signedInMember(api, merchant, 'owner', 'guessed-owner');
      const production = productionController(api);
      const caller = callerOf(merchant, member, 'owner');
      const before = await keyCount();
      const wrong = wrongCodeOf(member.secret);
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        expect(
          await refusalOf(
            production.create(caller, { name: 'Guess', two_factor_code: wrong }, HTTP),
          ),
        ).toMatchObject({ code: 'parameter_invalid', param: 'two_factor_code' });
      }
      const failures = (await auditOf(api, member.userId)).filter(
        (entry) => entry.action === 'two_factor.fresh_code_failed',
      );
      expect(failures).toHaveLength(5);
      expect(failures[0]).toMatchObject({ merchant_id: merchant.id });

      // Even the right code is refused now, and roll is held by the same count.
      const limited = await refusalOf(
        production.create(
          caller,
          { name: 'Right', two_factor_code: totpCode(member.secret, 1) },
          HTTP,
        ),
      );
      expect(limited).toMatchObject({ code: 'rate_limited' });
      const retryAfter = Number(limited?.headers?.['Retry-After']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      const key = await owner.agent.post(KEYS).set(unsafe(owner)).send({ name: 'Rollable' });
      expect(
        await refusalOf(
          production.roll(caller, key.body.id, { expires_in: 'now', two_factor_code: wrong }, HTTP),
        ),
      ).toMatchObject({ code: 'rate_limited' });
      expect(await keyCount()).toBe(before + 1);
    });

    it('counts parallel guesses: a burst gets 5 checked, the rest 429', async () => {
      const member = await signedInMember(api, merchant, 'owner', 'burst-owner');
      const production = productionController(api);
      const caller = callerOf(merchant, member, 'owner');
      const wrong = wrongCodeOf(member.secret);
      const refusals = await Promise.all(
        Array.from({ length: 12 }, () =>
          refusalOf(production.create(caller, { name: 'Burst', two_factor_code: wrong }, HTTP)),
        ),
      );
      const codes = refusals.map((refusal) => refusal?.code);
      expect(codes.filter((code) => code === 'parameter_invalid')).toHaveLength(5);
      expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(7);
      const failures = (await auditOf(api, member.userId)).filter(
        (entry) => entry.action === 'two_factor.fresh_code_failed',
      );
      expect(failures).toHaveLength(5);
    });

    it('is asked only after the role check, so a refused request spends no code', async () => {
      const production = productionController(api);
      const caller = callerOf(merchant, developer, 'developer');
      expect(
        await refusalOf(
          production.create(
            caller,
            { scopes: ['payouts:write'], two_factor_code: wrongCodeOf(developer.secret) },
            HTTP,
          ),
        ),
      ).toMatchObject({ code: 'permission_denied' });
      const failures = (await auditOf(api, developer.userId)).filter(
        (entry) => entry.action === 'two_factor.fresh_code_failed',
      );
      expect(failures).toHaveLength(0);
    });
  });
});

const HTTP = { headers: {}, ip: '203.0.113.9' } as Request;

/** The production controller: this one with config.livemode set, called as the router would. */
function productionController(api: TestApi): ApiKeysController {
  return controllerWith(api, { ...api.app.get<AppConfig>(APP_CONFIG), livemode: true });
}

function sandboxController(api: TestApi): ApiKeysController {
  return controllerWith(api, api.app.get<AppConfig>(APP_CONFIG));
}

function controllerWith(api: TestApi, config: AppConfig): ApiKeysController {
  return new ApiKeysController(
    api.app.get(ApiKeysService),
    api.app.get(TwoFactorVerifier),
    api.app.get(DataSource),
    config,
  );
}

/** What the authentication guard hands the controller: the role the session read. */
function callerOf(
  merchant: TestMerchant,
  member: ConsoleMember,
  role: ConsoleRole,
): AuthenticatedMerchant {
  return {
    merchantId: merchant.id,
    kind: 'direct',
    name: merchant.name,
    logoUrl: null,
    livemode: true,
    apiKeyId: null,
    actor: { type: 'console_user', userId: member.userId, sessionId: 'test', role },
    permissions: ROLE_PERMISSIONS[role],
  };
}
