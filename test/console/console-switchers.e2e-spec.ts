import request from 'supertest';
import type { Response } from 'supertest';
import {
  auditOf,
  ConsoleMember,
  inviteMember,
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { randomTronAddress } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const SUB_MERCHANTS = '/v1/sub-merchants';
const SESSION_BODY = {
  pricing_amount: '12',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
};

/** An error answer without its request id, which differs on every request. */
const errorOf = (response: Response) => {
  const error = { ...(response.body.error as Record<string, unknown>) };
  delete error.request_id;
  return { status: response.status, error };
};

/*
 * Issue 25's switchers on the server: a console session names a sub-merchant with
 * X-Sub-Merchant-Code exactly as an API key does (same tenancy, same errors), an existing account
 * accepts a second merchant's invitation by signing in to it, and the merchant switcher only
 * reaches memberships that exist.
 */
describe('Console sub-merchant context and merchant switcher (issue 25)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(() => api?.close());

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });

  /** Retries a write that met the per-second write limit (a loaded machine sends them close). */
  async function withinWriteLimit(send: () => Promise<Response>): Promise<Response> {
    for (;;) {
      const response = await send();
      if (response.status !== 429) return response;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  describe('X-Sub-Merchant-Code under a console session', () => {
    let psp: TestMerchant;
    let otherPsp: TestMerchant;
    let direct: TestMerchant;
    let owner: ConsoleMember;
    let directOwner: ConsoleMember;

    beforeAll(async () => {
      psp = await api.createMerchant({ name: 'Console PSP', kind: 'psp' });
      otherPsp = await api.createMerchant({ name: 'Other PSP', kind: 'psp' });
      direct = await api.createMerchant({ name: 'Console Direct' });
      owner = await signedInMember(api, psp, 'owner');
      directOwner = await signedInMember(api, direct, 'owner');
      await api.post(SUB_MERCHANTS, otherPsp, { code: 'theirs', name: 'Theirs' }).expect(201);
    });

    const consoleCreate = (member: ConsoleMember, code?: string) =>
      withinWriteLimit(() =>
        member.agent
          .post(SESSIONS)
          .set({ ...unsafe(member), ...(code ? { 'X-Sub-Merchant-Code': code } : {}) })
          .send(SESSION_BODY),
      );
    const keyCreate = (merchant: TestMerchant, code?: string) =>
      withinWriteLimit(() =>
        api.post(SESSIONS, merchant, SESSION_BODY, code ? { 'X-Sub-Merchant-Code': code } : {}),
      );

    it('creates and lists sub-merchants through /v1 with the session cookie, audited', async () => {
      const created = await owner.agent
        .post(SUB_MERCHANTS)
        .set({ ...unsafe(owner), 'Idempotency-Key': crypto.randomUUID() })
        .send({ code: 'corner', name: 'Corner Shop', status: 'active' })
        .expect(201);
      expect(created.body).toMatchObject({ code: 'corner', name: 'Corner Shop', status: 'active' });
      const listed = await owner.agent.get(`${SUB_MERCHANTS}?page_size=100`).expect(200);
      expect(listed.body.map((item: { code: string }) => item.code)).toEqual(['corner']);
      const audit = await auditOf(api, owner.userId);
      expect(audit.map((entry) => entry.action)).toContain('api.POST /v1/sub-merchants');
      // A direct merchant's console has no sub-merchants, as its key has none.
      const refused = await directOwner.agent.get(SUB_MERCHANTS).expect(403);
      const byKey = await api.get(SUB_MERCHANTS, direct).expect(403);
      expect(errorOf(refused)).toEqual(errorOf(byKey));
    });

    it("creates a session for the named sub-merchant and lists only that sub-merchant's", async () => {
      const own = await consoleCreate(owner);
      expect(own.status).toBe(201);
      expect(own.body.sub_merchant_code).toBeNull();
      const forCorner = await consoleCreate(owner, 'corner');
      expect(forCorner.status).toBe(201);
      expect(forCorner.body.sub_merchant_code).toBe('corner');
      const listed = await owner.agent
        .get(`${SESSIONS}?sub_merchant_code=corner`)
        .set('X-Sub-Merchant-Code', 'corner')
        .expect(200);
      expect(listed.body.map((item: { id: string }) => item.id)).toEqual([forCorner.body.id]);
      const byKey = await api.get(`${SESSIONS}?sub_merchant_code=corner`, psp).expect(200);
      expect(byKey.body).toEqual(listed.body);
    });

    it("answers another merchant's code and an unknown one exactly as for a key", async () => {
      for (const code of ['theirs', 'nobody-has-this']) {
        const bySession = await consoleCreate(owner, code);
        const byKey = await keyCreate(psp, code);
        expect(bySession.status).toBe(400);
        expect(errorOf(bySession)).toEqual(errorOf(byKey));
        expect(bySession.body.error).toMatchObject({
          code: 'invalid_sub_merchant_code',
          param: 'X-Sub-Merchant-Code',
        });
        const listedBySession = await owner.agent.get(`${SESSIONS}?sub_merchant_code=${code}`);
        const listedByKey = await api.get(`${SESSIONS}?sub_merchant_code=${code}`, psp);
        expect(listedBySession.status).toBe(400);
        expect(errorOf(listedBySession)).toEqual(errorOf(listedByKey));
      }
      // Nothing was created for the other PSP's sub-merchant.
      expect(
        await api.count(
          'checkout_sessions',
          `merchant_id = $1 AND sub_merchant_id IS NOT NULL AND sub_merchant_id NOT IN
             (SELECT id FROM sub_merchants WHERE merchant_id = $1)`,
          [psp.id],
        ),
      ).toBe(0);
    });

    it('passes the code of the Create payout form on as POST /v1/payouts does', async () => {
      const payout = {
        amount: '10',
        currency: 'USDT',
        network: 'TRON',
        to_address: randomTronAddress(),
      };
      const bySession = await owner.agent
        .post('/console/api/payouts')
        .set({ ...unsafe(owner), 'X-Sub-Merchant-Code': 'theirs' })
        .send({
          ...payout,
          two_factor_code: totpCode(owner.secret, 1),
          idempotency_key: crypto.randomUUID(),
        });
      const byKey = await withinWriteLimit(() =>
        api.post('/v1/payouts', psp, payout, {
          'X-Sub-Merchant-Code': 'theirs',
          'Idempotency-Key': crypto.randomUUID(),
        }),
      );
      expect(bySession.status).toBe(400);
      expect(errorOf(bySession)).toEqual(errorOf(byKey));
      expect(bySession.body.error.code).toBe('invalid_sub_merchant_code');
    });

    it('refuses the header from a direct merchant as it refuses its key', async () => {
      const bySession = await consoleCreate(directOwner, 'theirs');
      const byKey = await keyCreate(direct, 'theirs');
      expect(bySession.status).toBe(403);
      expect(errorOf(bySession)).toEqual(errorOf(byKey));
    });
  });

  describe('one account, several merchants', () => {
    const accept = (
      token: string,
      password: string,
      code: string,
      agent = request.agent(api.http),
    ) =>
      agent
        .post('/console/api/invitations/accept-with-account')
        .set(SAME_ORIGIN)
        .send({ token, password, code });

    it('accepts a second merchant with password and code, then switches between both', async () => {
      const first = await api.createMerchant({ name: 'First Shop' });
      const second = await api.createMerchant({ name: 'Second Shop' });
      const member = await signedInMember(api, first, 'owner');
      const { token } = await inviteMember(api, second, member.email, 'developer');

      const lookup = await request(api.http)
        .post('/console/api/invitations/lookup')
        .set(SAME_ORIGIN)
        .send({ token })
        .expect(200);
      expect(lookup.body).toMatchObject({ merchant_name: 'Second Shop', account_exists: true });
      // A new password for an existing account is still refused.
      await request(api.http)
        .post('/console/api/invitations/accept')
        .set(SAME_ORIGIN)
        .send({ token, password: 'another long password' })
        .expect(409);

      // A wrong code: the invitation stays pending and nothing is added.
      const wrongCode = await accept(token, PASSWORD, '000000').expect(401);
      expect(wrongCode.body.error).toMatchObject({ code: 'authentication_failed', param: 'code' });
      expect(await api.count('console_memberships', 'user_id = $1', [member.userId])).toBe(1);

      const agent = request.agent(api.http);
      const accepted = await accept(token, PASSWORD, totpCode(member.secret, 1), agent).expect(200);
      expect(accepted.body).toMatchObject({ signed_in: true, merchant_id: second.id });
      const session = await agent.get('/console/api/session').expect(200);
      expect(session.body).toMatchObject({
        merchant: { id: second.id, name: 'Second Shop' },
        role: 'developer',
      });
      expect(
        session.body.memberships.map((m: { merchant_id: string; role: string }) => [
          m.merchant_id,
          m.role,
        ]),
      ).toEqual([
        [first.id, 'owner'],
        [second.id, 'developer'],
      ]);
      const audit = await auditOf(api, member.userId);
      expect(audit.find((entry) => entry.action === 'invitation.accepted')).toMatchObject({
        merchant_id: second.id,
        details: { role: 'developer', existing_account: true },
      });
      // Single use: the token is spent, and only its hash was ever stored.
      await accept(token, PASSWORD, member.recoveryCodes[0]).expect(404);
      expect(
        await api.count('console_invitations', `token_hash = sha256(convert_to($1, 'UTF8'))`, [
          token,
        ]),
      ).toBe(1);

      // Roles per membership: a developer at Second Shop reads no payouts, an owner at First does.
      const csrf = session.body.csrf_token as string;
      const denied = await agent.get('/v1/payouts').expect(403);
      expect(denied.body.error.code).toBe('permission_denied');
      const switched = await agent
        .post('/console/api/session/merchant')
        .set({ ...SAME_ORIGIN, 'X-CSRF-Token': csrf })
        .send({ merchant_id: first.id })
        .expect(200);
      expect(switched.body).toMatchObject({ merchant: { id: first.id }, role: 'owner' });
      await agent.get('/v1/payouts').expect(200);
      expect((await auditOf(api, member.userId))[0]).toMatchObject({
        action: 'session.merchant_switched',
        merchant_id: first.id,
        details: { from_merchant_id: second.id },
      });

      // No membership: 404, as for a merchant that does not exist, and nothing changes.
      const stranger = await api.createMerchant({ name: 'Not Theirs' });
      const refused = await agent
        .post('/console/api/session/merchant')
        .set({ ...SAME_ORIGIN, 'X-CSRF-Token': csrf })
        .send({ merchant_id: stranger.id })
        .expect(404);
      expect(refused.body.error).toMatchObject({ code: 'resource_missing', param: 'merchant_id' });
      const still = await agent.get('/console/api/session').expect(200);
      expect(still.body.merchant.id).toBe(first.id);
    });

    it('cannot switch to a merchant whose team removed the member', async () => {
      const home = await api.createMerchant({ name: 'Home Shop' });
      const guest = await api.createMerchant({ name: 'Guest Shop' });
      const member = await signedInMember(api, home, 'owner');
      const guestOwner = await signedInMember(api, guest, 'owner');
      const { token } = await inviteMember(api, guest, member.email, 'viewer');
      await accept(token, PASSWORD, member.recoveryCodes[0]).expect(200);
      // The member's first session (at Home) may switch to Guest now.
      await member.agent
        .post('/console/api/session/merchant')
        .set(unsafe(member))
        .send({ merchant_id: guest.id })
        .expect(200);
      await member.agent
        .post('/console/api/session/merchant')
        .set(unsafe(member))
        .send({ merchant_id: home.id })
        .expect(200);

      await guestOwner.agent
        .delete(`/console/api/team/members/${member.userId}`)
        .set(unsafe(guestOwner))
        .expect(204);
      const refused = await member.agent
        .post('/console/api/session/merchant')
        .set(unsafe(member))
        .send({ merchant_id: guest.id })
        .expect(404);
      expect(refused.body.error.code).toBe('resource_missing');
      const session = await member.agent.get('/console/api/session').expect(200);
      expect(session.body.merchant.id).toBe(home.id);
      expect(session.body.memberships).toHaveLength(1);
    });

    it('counts a wrong password toward the sign-in lockout, audited as a failed sign-in', async () => {
      const first = await api.createMerchant({ name: 'Lock Home' });
      const second = await api.createMerchant({ name: 'Lock Guest' });
      const member = await signedInMember(api, first, 'owner');
      const { token } = await inviteMember(api, second, member.email, 'viewer');
      const wrong = await accept(token, 'not the password', '123456').expect(401);
      expect(wrong.body.error.code).toBe('authentication_failed');
      expect((await auditOf(api, member.userId))[0]).toMatchObject({
        action: 'user.sign_in_failed',
        details: { reason: 'password' },
      });
      // Three more through the sign-in form make four; the fifth failure, wherever typed, locks.
      const signIn = (password: string) =>
        request(api.http)
          .post('/console/api/sign-in')
          .set(SAME_ORIGIN)
          .send({ email: member.email, password });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await signIn('still not the password').expect(401);
      }
      const locked = await accept(token, 'not the password either', '123456').expect(429);
      expect(locked.body.error.code).toBe('rate_limited');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      // Locked for the sign-in form too, even with the right password; the invitation is unused.
      await signIn(PASSWORD).expect(429);
      await accept(token, PASSWORD, member.recoveryCodes[0]).expect(429);
      expect(await api.count('console_memberships', 'user_id = $1', [member.userId])).toBe(1);
      // The refusal, with nothing checked, is in the log as the form's is.
      expect((await auditOf(api, member.userId))[0]).toMatchObject({
        action: 'user.sign_in_failed',
        merchant_id: first.id,
        details: { reason: 'locked', step: 'password' },
      });
    });
  });
});
