import request from 'supertest';
import { APP_CONFIG, AppConfig } from '@app/common';
import { passwordResetFromCli } from '@app/console';
import {
  ConsoleMember,
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';

const NEW_PASSWORD = 'a brand new passphrase for the console';
const RESET = '/console/api/sign-in/password-reset';
const GONE = {
  type: 'invalid_request_error',
  code: 'resource_missing',
  message: 'This reset link is unknown, already used or expired. Ask for a new one.',
};

describe('Console password reset links (no outgoing e-mail)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;
  let admin: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Reset Shop' });
    owner = await signedInMember(api, merchant, 'owner');
    admin = await signedInMember(api, merchant, 'admin');
  });

  afterAll(async () => {
    await api.close();
  });

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const issueFor = (issuer: ConsoleMember, target: ConsoleMember) =>
    issuer.agent
      .post(`/console/api/team/members/${target.userId}/password-reset`)
      .set(unsafe(issuer))
      .send({});
  const tokenOf = (url: string) => /reset-password#token=([A-Za-z0-9_-]{43})$/.exec(url)![1];
  const complete = (body: Record<string, unknown>) =>
    request(api.http).post(RESET).set(SAME_ORIGIN).send(body);
  const signIn = (email: string, password: string) =>
    request(api.http).post('/console/api/sign-in').set(SAME_ORIGIN).send({ email, password });
  const auditActions = async (userId: string) =>
    (
      await api.dataSource.query(
        `SELECT action, actor_id, details FROM console_audit_log
          WHERE target_id = $1 AND action LIKE 'user.password_reset%' ORDER BY created_at, id`,
        [userId],
      )
    ).map((row: { action: string; actor_id: string | null }) => [row.action, row.actor_id]);

  it('an admin issues a link; the code is asked too; it sets the password once and signs out everywhere', async () => {
    const developer = await signedInMember(api, merchant, 'developer');
    const issued = await issueFor(admin, developer).expect(201);
    expect(issued.body).toEqual({
      reset_url: expect.stringMatching(/\/console\/reset-password#token=[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const hour = new Date(issued.body.expires_at).getTime() - Date.now();
    expect(hour).toBeGreaterThan(55 * 60_000);
    expect(hour).toBeLessThanOrEqual(60 * 60_000);
    const token = tokenOf(issued.body.reset_url);
    // Only the hash is stored.
    const stored = await api.count('console_password_resets', `token_hash = sha256($1::bytea)`, [
      Buffer.from(token),
    ]);
    expect(stored).toBe(1);
    expect(
      await api.count('console_password_resets', `token_hash::text LIKE $1`, [`%${token}%`]),
    ).toBe(0);

    const lookup = await request(api.http)
      .post(`${RESET}/lookup`)
      .set(SAME_ORIGIN)
      .send({ token })
      .expect(200);
    expect(lookup.body).toEqual({ email: developer.email, two_factor_required: true });

    // The link alone is not enough: no code, a wrong code, are refused and change nothing.
    const noCode = await complete({ token, password: NEW_PASSWORD }).expect(401);
    expect(noCode.body.error).toMatchObject({ code: 'authentication_failed', param: 'code' });
    await complete({ token, password: NEW_PASSWORD, code: '000000' }).expect(401);
    await developer.agent.get('/console/api/session').expect(200);

    const done = await complete({
      token,
      password: NEW_PASSWORD,
      code: totpCode(developer.secret, 1),
    }).expect(200);
    expect(done.body).toEqual({ password_reset: true });

    // Every session of the user ended; the new password works, the old one does not.
    await developer.agent.get('/console/api/session').expect(401);
    expect(
      await api.count('console_sessions', `user_id = $1 AND revoked_at IS NULL`, [
        developer.userId,
      ]),
    ).toBe(0);
    const signedIn = await signIn(developer.email, NEW_PASSWORD).expect(200);
    // Two-factor kept: the password step asks for the code.
    expect(signedIn.body).toMatchObject({ two_factor_required: true });
    await signIn(developer.email, PASSWORD).expect(401);

    // Single use: the same answer as an unknown token, from both calls.
    const reused = await complete({
      token,
      password: 'yet another passphrase here',
      code: totpCode(developer.secret, 2),
    }).expect(404);
    expect(reused.body.error).toMatchObject(GONE);
    const unknown = await complete({
      token: 'A'.repeat(43),
      password: NEW_PASSWORD,
    }).expect(404);
    expect(unknown.body.error).toMatchObject(GONE);
    await request(api.http).post(`${RESET}/lookup`).set(SAME_ORIGIN).send({ token }).expect(404);

    expect(await auditActions(developer.userId)).toEqual([
      ['user.password_reset_issued', admin.userId],
      ['user.password_reset_failed', developer.userId],
      ['user.password_reset_failed', developer.userId],
      ['user.password_reset', developer.userId],
    ]);
  });

  it('is issued by owners and admins only, never for someone above the issuer', async () => {
    const developer = await signedInMember(api, merchant, 'developer');
    const viewer = await signedInMember(api, merchant, 'viewer');
    const byDeveloper = await issueFor(developer, viewer).expect(403);
    expect(byDeveloper.body.error.code).toBe('permission_denied');
    await issueFor(viewer, developer).expect(403);
    const adminForOwner = await issueFor(admin, owner).expect(403);
    expect(adminForOwner.body.error.code).toBe('permission_denied');
    await issueFor(owner, admin).expect(201);
    // A stranger's member is not found in this team.
    const elsewhere = await api.createMerchant({ name: 'Other Shop' });
    const stranger = await signedInMember(api, elsewhere, 'viewer');
    await issueFor(owner, stranger).expect(404);
    expect(await auditActions(viewer.userId)).toEqual([]);
    expect(await auditActions(stranger.userId)).toEqual([]);
  });

  it('refuses an expired link or one replaced by a newer link with the same answer', async () => {
    const viewer = await signedInMember(api, merchant, 'viewer');
    const first = tokenOf((await issueFor(admin, viewer).expect(201)).body.reset_url);
    const second = tokenOf((await issueFor(admin, viewer).expect(201)).body.reset_url);
    const replaced = await complete({
      token: first,
      password: NEW_PASSWORD,
      code: totpCode(viewer.secret, 1),
    }).expect(404);
    expect(replaced.body.error).toMatchObject(GONE);
    await api.dataSource.query(
      `UPDATE console_password_resets SET expires_at = now() - interval '1 second'
        WHERE user_id = $1 AND used_at IS NULL AND revoked_at IS NULL`,
      [viewer.userId],
    );
    const expired = await complete({
      token: second,
      password: NEW_PASSWORD,
      code: totpCode(viewer.secret, 1),
    }).expect(404);
    expect(expired.body.error).toMatchObject(GONE);
    await signIn(viewer.email, PASSWORD).expect(200);
  });

  it('never lowers the lockout: a reset counts as an attempt and gives nothing back', async () => {
    const support = await signedInMember(api, merchant, 'support');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await signIn(support.email, 'wrong password, attempt').expect(401);
    }
    const token = tokenOf((await issueFor(owner, support).expect(201)).body.reset_url);
    await complete({
      token,
      password: NEW_PASSWORD,
      code: totpCode(support.secret, 1),
    }).expect(200);
    // 3 failures and the reset's charge: the next wrong password is the fifth and locks.
    const locked = await signIn(support.email, 'wrong again').expect(429);
    expect(locked.headers['retry-after']).toBeDefined();
    // A link used while locked is refused without being spent.
    const next = tokenOf((await issueFor(owner, support).expect(201)).body.reset_url);
    await complete({
      token: next,
      password: 'another fresh passphrase',
      code: totpCode(support.secret, 2),
    }).expect(429);
    await request(api.http)
      .post(`${RESET}/lookup`)
      .set(SAME_ORIGIN)
      .send({ token: next })
      .expect(200);
  });

  it('console:reset-password prints a link for an owner, audited as the CLI', async () => {
    const config = api.app.get<AppConfig>(APP_CONFIG);
    const printed = await passwordResetFromCli(api.dataSource, config, {
      realm: 'merchant',
      email: owner.email.toUpperCase(),
    });
    expect(printed.reset_url).toMatch(/\/console\/reset-password#token=[A-Za-z0-9_-]{43}$/);
    await complete({
      token: tokenOf(printed.reset_url),
      password: NEW_PASSWORD,
      code: totpCode(owner.secret, 1),
    }).expect(200);
    expect((await auditActions(owner.userId)).slice(-2)).toEqual([
      ['user.password_reset_issued', null],
      ['user.password_reset', owner.userId],
    ]);
    await expect(
      passwordResetFromCli(api.dataSource, config, {
        realm: 'operator',
        email: owner.email,
      }),
    ).rejects.toThrow('No operator account');
  });
});
