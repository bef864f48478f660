import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { APP_CONFIG, AppConfig } from '@app/common';
import { inviteFromCli } from '@app/console';
import {
  inviteMember,
  PASSWORD,
  SAME_ORIGIN,
  tokenOf,
  totpCode,
  uniqueEmail,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
// This run's own build of the CLI (dist/ is git-ignored), removed at the end.
const BUILD = join(ROOT, 'dist', `console-cli-e2e-${process.pid}`);

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The CLI compiled as `npm run build` does, without type checking (see payouts-cli's suite). */
async function buildCli(): Promise<void> {
  const result = await run([
    require.resolve('typescript/bin/tsc'),
    ...['-p', 'apps/cli/tsconfig.app.json', '--noCheck', '--sourceMap', 'false'],
    ...['--outDir', BUILD],
  ]);
  if (result.code !== 0) throw new Error(`CLI build failed: ${result.stdout}${result.stderr}`);
}

function cli(...args: string[]): Promise<CliResult> {
  return run(['-r', 'tsconfig-paths/register', join(BUILD, 'apps/cli/src/main.js'), ...args], {
    TS_NODE_BASEURL: BUILD,
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'https://pay.example.com',
  });
}

describe('Console invitations (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    await buildCli();
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Invitations Shop' });
  });

  afterAll(async () => {
    rmSync(BUILD, { recursive: true, force: true });
    await api.close();
  });

  /** What the invitation page asks: the token in the body, never in the URL. */
  const lookup = (token: string) =>
    request(api.http).post('/console/api/invitations/lookup').set(SAME_ORIGIN).send({ token });

  const accept = (token: string, password = PASSWORD) =>
    request(api.http)
      .post('/console/api/invitations/accept')
      .set(SAME_ORIGIN)
      .send({ token, password });

  it('console:invite prints one JSON value with the invitation URL, audited as the CLI', async () => {
    const email = uniqueEmail('cli-owner');
    const result = await cli(
      'console:invite',
      ...['--merchant', merchant.id, '--email', email, '--role', 'owner'],
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual({
      invitation_url: expect.stringMatching(
        /^https:\/\/pay\.example\.com\/console\/accept-invitation#token=[A-Za-z0-9_-]{43}$/,
      ),
      expires_at: expect.any(String),
    });
    const days = (Date.parse(printed.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const shown = await lookup(tokenOf(printed.invitation_url)).expect(200);
    expect(shown.body).toEqual({
      email: email.toLowerCase(),
      realm: 'merchant',
      merchant_name: 'Console Invitations Shop',
      role: 'owner',
      expires_at: printed.expires_at,
      // The page asks a new address for a password, an existing account to sign in.
      account_exists: false,
    });
    const audit = await api.dataSource.query(
      `SELECT actor_type, details FROM console_audit_log
        WHERE merchant_id = $1 AND action = 'invitation.created'`,
      [merchant.id],
    );
    expect(audit).toEqual([
      {
        actor_type: 'cli',
        details: { email: email.toLowerCase(), realm: 'merchant', role: 'owner' },
      },
    ]);
  });

  it('ops:invite prints an /ops invitation URL; bad input is a usage error', async () => {
    const result = await cli('ops:invite', '--email', uniqueEmail('operator'));
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed.invitation_url).toMatch(
      /^https:\/\/pay\.example\.com\/ops\/accept-invitation#token=/,
    );
    const shown = await request(api.http)
      .post('/console/api/invitations/lookup')
      .set(SAME_ORIGIN)
      .send({ token: tokenOf(printed.invitation_url) })
      .expect(200);
    expect(shown.body).toMatchObject({ realm: 'operator', merchant_name: null, role: null });

    const badRole = await cli(
      'console:invite',
      ...['--merchant', merchant.id, '--email', uniqueEmail('x'), '--role', 'god'],
    );
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain(
      '--role must be one of owner, admin, developer, support, viewer.',
    );
    const noMerchant = await cli(
      'console:invite',
      ...['--merchant', 'mer_nope', '--email', uniqueEmail('x'), '--role', 'viewer'],
    );
    expect(noMerchant.code).toBe(2);
    expect(noMerchant.stderr).toContain('No merchant mer_nope.');
  });

  it('never takes the token in a URL path (it would sit in access logs)', async () => {
    const { token } = await inviteMember(api, merchant, uniqueEmail('no-get'), 'viewer');
    const refused = await request(api.http).get(`/console/api/invitations/${token}`).expect(404);
    expect(refused.body.error.code).toBe('route_not_found');
    await lookup(token).expect(200);
  });

  it('is used once: a second acceptance is 404 and the page no longer shows it', async () => {
    const { token } = await inviteMember(api, merchant, uniqueEmail('once'), 'viewer');
    const first = await accept(token).expect(200);
    expect(first.body.two_factor_enrolment).toEqual({
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauth_url: expect.stringMatching(/^otpauth:\/\/totp\//),
      qr_svg: expect.stringContaining('<svg'),
    });
    const again = await accept(token).expect(404);
    expect(again.body.error.code).toBe('resource_missing');
    await lookup(token).expect(404);
  });

  it('expires after its week, and an unknown token is 404 alike', async () => {
    const { token } = await inviteMember(api, merchant, uniqueEmail('expired'), 'viewer');
    await api.dataSource.query(
      `UPDATE console_invitations SET expires_at = now() - interval '1 second'
        WHERE merchant_id = $1 AND accepted_at IS NULL`,
      [merchant.id],
    );
    await lookup(token).expect(404);
    await accept(token).expect(404);
    await lookup('A'.repeat(43)).expect(404);
  });

  it('refuses a short password and an address that has an account already', async () => {
    const email = uniqueEmail('twice');
    const { token } = await inviteMember(api, merchant, email, 'viewer');
    const short = await accept(token, 'short pass').expect(400);
    expect(short.body.error.param).toBe('password');
    await accept(token).expect(200);

    const other = await api.createMerchant({ name: 'Console Invitations Other' });
    const second = await inviteMember(api, other, email, 'viewer');
    const exists = await accept(second.token).expect(409);
    expect(exists.body.error.code).toBe('resource_already_exists');
    expect(exists.body.error.message).toContain('Sign in');
    await lookup(second.token).expect(200);
  });

  it("makes an operator's account that signs in to no merchant and cannot call /v1", async () => {
    const email = uniqueEmail('ops');
    const invitation = await inviteFromCli(api.dataSource, api.app.get<AppConfig>(APP_CONFIG), {
      realm: 'operator',
      merchantId: null,
      email,
      role: null,
    });
    const agent = request.agent(api.http);
    const accepted = await agent
      .post('/console/api/invitations/accept')
      .set(SAME_ORIGIN)
      .send({ token: tokenOf(invitation.invitation_url), password: PASSWORD })
      .expect(200);
    const csrf = accepted.body.csrf_token as string;
    await agent
      .post('/console/api/two-factor/enrol')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': csrf })
      .send({ code: totpCode(accepted.body.two_factor_enrolment.secret) })
      .expect(200);
    const session = await agent.get('/console/api/session').expect(200);
    expect(session.body).toMatchObject({
      realm: 'operator',
      merchant: null,
      role: null,
      permissions: [],
      memberships: [],
    });
    const v1 = await agent.get('/v1/balances').expect(403);
    expect(v1.body.error.code).toBe('permission_denied');
    // The same address is free in the merchant realm: accounts are per realm.
    const { token } = await inviteMember(api, merchant, email, 'viewer');
    await accept(token).expect(200);
    // One address, two accounts: the operator's is enrolled, the merchant one not yet.
    const asOperator = await request(api.http)
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email, password: PASSWORD, realm: 'operator' })
      .expect(200);
    expect(asOperator.body).toEqual({ two_factor_required: true, csrf_token: expect.any(String) });
    const asMember = await request(api.http)
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email, password: PASSWORD })
      .expect(200);
    expect(Object.keys(asMember.body).sort()).toEqual(['csrf_token', 'two_factor_enrolment']);
  });

  it('stores only hashes and sealed secrets', async () => {
    const email = uniqueEmail('at-rest');
    const { token } = await inviteMember(api, merchant, email, 'viewer');
    const accepted = await accept(token).expect(200);
    const [user] = await api.dataSource.query(
      `SELECT password_hash, totp_secret_encrypted FROM console_users WHERE email = $1`,
      [email.toLowerCase()],
    );
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user.totp_secret_encrypted).toMatch(/^v1:/);
    expect(user.totp_secret_encrypted).not.toContain(accepted.body.two_factor_enrolment.secret);
    const found = await api.count('console_invitations', 'token_hash = sha256($1::bytea)', [
      Buffer.from(token),
    ]);
    expect(found).toBe(1);
  });
});
