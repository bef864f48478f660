import request from 'supertest';
import {
  auditOf,
  ConsoleMember,
  inviteMember,
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
  uniqueEmail,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { SignInThrottle } from '../../libs/console/src/sign-in/sign-in-throttle';
import { TwoFactorEnrolment } from '../../libs/console/src/two-factor/two-factor-enrolment';

/** The error part of a 401 sign-in answer, without what differs per request. */
const refusal = (body: { error: Record<string, unknown> }) => ({
  ...body.error,
  request_id: undefined,
});

describe('Console sign-in (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let member: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Sign-in Shop' });
    member = await signedInMember(api, merchant, 'owner');
  });

  afterAll(async () => {
    await api.close();
  });

  /** Failures left by one test must not lock the shared member in the next. */
  const forgetFailures = (email: string) =>
    api.app.get(SignInThrottle).forget(api.dataSource.manager, 'merchant', email);

  const signIn = (email: string, password: string) =>
    request.agent(api.http).post('/console/api/sign-in').set(SAME_ORIGIN).send({ email, password });

  async function passwordStep(email: string) {
    const agent = request.agent(api.http);
    const response = await agent
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email: email.toUpperCase(), password: PASSWORD });
    expect(response.status).toBe(200);
    return { agent, csrf: response.body.csrf_token as string, body: response.body };
  }

  it('accepts an invitation, enrols TOTP, and the session cookie calls /v1 as the merchant', async () => {
    const balances = await member.agent.get('/v1/balances').expect(200);
    const withKey = await api.get('/v1/balances', merchant).expect(200);
    expect(balances.body).toEqual(withKey.body);
    expect(member.recoveryCodes).toHaveLength(10);
    expect(new Set(member.recoveryCodes).size).toBe(10);
    const cookie = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM console_sessions WHERE user_id = $1`,
      [member.userId],
    );
    expect(cookie[0].n).toBe(1);
  });

  it('describes the session', async () => {
    const session = await member.agent.get('/console/api/session').expect(200);
    expect(session.body).toEqual({
      user: { id: member.userId, email: member.email },
      realm: 'merchant',
      merchant: { id: merchant.id, name: 'Console Sign-in Shop', kind: 'direct' },
      role: 'owner',
      permissions: expect.arrayContaining(['team:write', 'balances:read', 'audit_log:read']),
      memberships: [
        { merchant_id: merchant.id, merchant_name: 'Console Sign-in Shop', role: 'owner' },
      ],
      csrf_token: member.csrf,
      livemode: false,
      // Set only while an operator views as the merchant (docs/operators.md).
      view_as: null,
    });
  });

  it('sets an HttpOnly, SameSite=Lax session cookie, and a new one at each sign-in', async () => {
    const first = await signIn(member.email, PASSWORD).expect(200);
    const second = await signIn(member.email, PASSWORD).expect(200);
    const cookieOf = (response: request.Response) =>
      (response.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('console_session='),
      )!;
    expect(cookieOf(first)).toMatch(/; Path=\/; .*HttpOnly/);
    expect(cookieOf(first)).toMatch(/SameSite=Lax/);
    expect(cookieOf(first).split(';')[0]).not.toBe(cookieOf(second).split(';')[0]);
    expect(first.body).toEqual({ two_factor_required: true, csrf_token: expect.any(String) });
  });

  it('keeps a half signed-in session away from /v1 and the console until the second factor', async () => {
    const { agent } = await passwordStep(member.email);
    const v1 = await agent.get('/v1/balances').expect(401);
    expect(v1.body.error.code).toBe('two_factor_required');
    const session = await agent.get('/console/api/session').expect(401);
    expect(session.body.error.code).toBe('two_factor_required');
  });

  it('accepts a TOTP code once: the same time step is refused the second time', async () => {
    const code = totpCode(member.secret, 1);
    const first = await passwordStep(member.email);
    const done = await first.agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': first.csrf })
      .send({ code })
      .expect(200);
    expect(done.body).toEqual({ signed_in: true, csrf_token: expect.any(String) });
    await first.agent.get('/v1/balances').expect(200);

    const second = await passwordStep(member.email);
    const replay = await second.agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': second.csrf })
      .send({ code })
      .expect(401);
    expect(replay.body.error.code).toBe('authentication_failed');
    await second.agent.get('/v1/balances').expect(401);
    const entries = await auditOf(api, member.userId);
    expect(entries.slice(0, 4).map((entry) => entry.action)).toEqual([
      'user.sign_in_failed',
      'user.password_accepted',
      'user.signed_in',
      'user.password_accepted',
    ]);
    expect(entries[0]).toMatchObject({
      merchant_id: merchant.id,
      details: { reason: 'two_factor' },
    });
    await forgetFailures(member.email);
  });

  it('rotates the session id and the CSRF token when the second factor completes', async () => {
    const cookieOf = (response: request.Response) =>
      ([] as string[])
        .concat(response.headers['set-cookie'] ?? [])
        .find((c) => c.startsWith('console_session='))
        ?.split(';')[0];
    const agent = request.agent(api.http);
    const password = await agent
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email: member.email, password: PASSWORD })
      .expect(200);
    const csrf = password.body.csrf_token as string;
    const oldCookie = cookieOf(password);
    expect(oldCookie).toMatch(/^console_session=./);
    const done = await agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': csrf })
      // A recovery code: the TOTP steps are spent by the other tests.
      .send({ code: member.recoveryCodes[1] })
      .expect(200);
    const newCookie = cookieOf(done);
    expect(newCookie).toBeDefined();
    expect(newCookie).not.toBe(oldCookie);
    expect(done.body.csrf_token).not.toBe(csrf);
    // The pre-2FA cookie is worth nothing now; the new one is signed in with the new token.
    const stale = await request(api.http)
      .get('/console/api/session')
      .set('Cookie', oldCookie!)
      .expect(401);
    expect(stale.body.error.code).toBe('authentication_failed');
    const session = await agent.get('/console/api/session').expect(200);
    expect(session.body.csrf_token).toBe(done.body.csrf_token);
    const oldToken = await agent
      .post('/console/api/session/merchant')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': csrf })
      .send({ merchant_id: merchant.id })
      .expect(403);
    expect(oldToken.body.error.code).toBe('csrf_failed');
    await forgetFailures(member.email);
  });

  it('accepts a recovery code once', async () => {
    const recoveryCode = member.recoveryCodes[0];
    const first = await passwordStep(member.email);
    await first.agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': first.csrf })
      .send({ code: recoveryCode.toLowerCase() })
      .expect(200);
    await first.agent.get('/v1/balances').expect(200);

    const second = await passwordStep(member.email);
    await second.agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': second.csrf })
      .send({ code: recoveryCode })
      .expect(401);
    await forgetFailures(member.email);
  });

  it('answers an unknown e-mail exactly as a wrong password, and audits both', async () => {
    const wrongPassword = await signIn(member.email, 'not the password at all').expect(401);
    // What was typed into the address field may be a password: never kept for no account.
    const typed = uniqueEmail('nobody');
    const unknownEmail = await signIn(typed, PASSWORD).expect(401);
    const keptTyped = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM console_audit_log
        WHERE action = 'user.sign_in_failed' AND lower(details::text) LIKE $1`,
      [`%${typed.toLowerCase()}%`],
    );
    expect(keptTyped[0].n).toBe(0);
    expect(refusal(unknownEmail.body)).toEqual(refusal(wrongPassword.body));
    expect(refusal(wrongPassword.body)).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      message: 'Incorrect email or password.',
    });
    expect(unknownEmail.headers['set-cookie']).toBeUndefined();
    const [latest] = await auditOf(api, member.userId);
    expect(latest).toMatchObject({
      action: 'user.sign_in_failed',
      details: { reason: 'password' },
    });
    await forgetFailures(member.email);
  });

  it('never replaces a TOTP enabled after the password step read the account (race)', async () => {
    // The password step read "no TOTP yet" just before the user finished enrolling elsewhere:
    // starting an enrolment now must leave the enabled secret alone.
    const enrolled = await signedInMember(api, merchant, 'viewer', 'enrol-race');
    const totpOf = () =>
      api.dataSource.query(
        `SELECT totp_secret_encrypted, totp_enabled_at, totp_last_step FROM console_users
          WHERE id = $1`,
        [enrolled.userId],
      );
    const before = await totpOf();
    const started = await api.dataSource.transaction((manager) =>
      api.app
        .get(TwoFactorEnrolment)
        .startUnlessEnabled(manager, { id: enrolled.userId, email: enrolled.email }),
    );
    // Not toBeNull: a failure would print the new secret.
    expect(started === null).toBe(true);
    expect(await totpOf()).toEqual(before);
    expect(before[0].totp_enabled_at).not.toBeNull();
  });

  it('lists the own sessions, marks the current one, and ends another', async () => {
    const other = await passwordStep(member.email);
    const pending = await other.agent.get('/console/api/session').expect(401);
    expect(pending.body.error.code).toBe('two_factor_required');
    const list = await member.agent.get('/console/api/security/sessions').expect(200);
    const current = list.body.filter((session: { current: boolean }) => session.current);
    expect(current).toHaveLength(1);
    expect(list.body.length).toBeGreaterThanOrEqual(2);
    const others = list.body.filter((session: { current: boolean }) => !session.current);
    for (const session of others) {
      await member.agent
        .delete(`/console/api/security/sessions/${session.id}`)
        .set({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf })
        .expect(204);
    }
    // Before: waiting for its second factor; now: no session at all.
    const ended = await other.agent.get('/console/api/session').expect(401);
    expect(ended.body.error.code).toBe('authentication_failed');
    const after = await member.agent.get('/console/api/security/sessions').expect(200);
    expect(after.body).toHaveLength(1);
  });

  it('ends a session after the idle timeout and after 12 hours whatever its use', async () => {
    const idle = await signedInMember(api, merchant, 'viewer', 'idle');
    await idle.agent.get('/v1/balances').expect(200);
    await api.dataSource.query(
      `UPDATE console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE user_id = $1`,
      [idle.userId],
    );
    await idle.agent.get('/v1/balances').expect(401);

    const old = await signedInMember(api, merchant, 'viewer', 'absolute');
    await old.agent.get('/console/api/session').expect(200);
    await api.dataSource.query(
      `UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [old.userId],
    );
    await old.agent.get('/console/api/session').expect(401);
    const [row] = await api.dataSource.query(
      `SELECT expires_at - created_at AS lifetime FROM console_sessions WHERE user_id = $1`,
      [idle.userId],
    );
    expect(row.lifetime).toMatchObject({ hours: 12 });
  });

  it('signs out: the cookie no longer works', async () => {
    const invited = await inviteMember(api, merchant, uniqueEmail('signout'), 'viewer');
    const agent = request.agent(api.http);
    const accepted = await agent
      .post('/console/api/invitations/accept')
      .set(SAME_ORIGIN)
      .send({ token: invited.token, password: PASSWORD })
      .expect(200);
    await agent
      .post('/console/api/sign-out')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': accepted.body.csrf_token })
      .expect(204);
    await agent.get('/console/api/session').expect(401);
  });
});
