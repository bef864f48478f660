import { authenticator } from 'otplib';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type TestAgent from 'supertest/lib/agent';
import { ConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException } from '@app/common';
import { inviteFromCli } from '@app/console';
import { TestApi, TestMerchant } from './test-app';

export const PASSWORD = 'correct horse battery staple';
/** What a browser's fetch from the console's own page sends. */
export const SAME_ORIGIN = { 'Sec-Fetch-Site': 'same-origin' };

/** The code an authenticator app shows `steps` time steps from now (30 s each). */
export function totpCode(secret: string, steps = 0): string {
  return authenticator
    .clone({ step: 30, digits: 6, window: 1, epoch: Date.now() + steps * 30_000 })
    .generate(secret);
}

export function uniqueEmail(label: string): string {
  return `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@Example.test`;
}

/** An invitation as `console:invite` makes it (actor cli); returns its token and URL. */
export async function inviteMember(
  api: TestApi,
  merchant: TestMerchant,
  email: string,
  role: ConsoleRole = 'owner',
): Promise<{ token: string; url: string; expiresAt: string }> {
  const invitation = await inviteFromCli(api.dataSource, api.app.get<AppConfig>(APP_CONFIG), {
    realm: 'merchant',
    merchantId: merchant.id,
    email,
    role,
  });
  return {
    token: tokenOf(invitation.invitation_url),
    url: invitation.invitation_url,
    expiresAt: invitation.expires_at,
  };
}

export function tokenOf(invitationUrl: string): string {
  const match = /#token=([A-Za-z0-9_-]+)$/.exec(invitationUrl);
  if (!match) throw new Error(`no token in ${invitationUrl}`);
  return match[1];
}

export interface ConsoleMember {
  agent: TestAgent;
  userId: string;
  email: string;
  secret: string;
  csrf: string;
  recoveryCodes: string[];
}

/** Accepts an invitation and enrols TOTP in a cookie-keeping agent: a signed-in member. */
export async function signedInMember(
  api: TestApi,
  merchant: TestMerchant,
  role: ConsoleRole = 'owner',
  label: string = role,
): Promise<ConsoleMember> {
  const email = uniqueEmail(label);
  const { token } = await inviteMember(api, merchant, email, role);
  const agent = request.agent(api.http);
  const accepted = await agent
    .post('/console/api/invitations/accept')
    .set(SAME_ORIGIN)
    .send({ token, password: PASSWORD });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  const { secret } = accepted.body.two_factor_enrolment as { secret: string };
  const enrolled = await agent
    .post('/console/api/two-factor/enrol')
    .set({ ...SAME_ORIGIN, 'X-CSRF-Token': accepted.body.csrf_token as string })
    .send({ code: totpCode(secret) });
  if (enrolled.status !== 200) throw new Error(`enrol: ${enrolled.status} ${enrolled.text}`);
  // Enrolment rotates the session id and its CSRF token (docs/console.md).
  const csrf = enrolled.body.csrf_token as string;
  const users: Array<{ id: string }> = await api.dataSource.query(
    `SELECT id FROM console_users WHERE realm = 'merchant' AND email = $1`,
    [email.toLowerCase()],
  );
  return {
    agent,
    userId: users[0].id,
    email: email.toLowerCase(),
    secret,
    csrf,
    recoveryCodes: enrolled.body.recovery_codes as string[],
  };
}

/** The latest audit entries of a user (as actor), newest first. */
export async function auditOf(
  api: TestApi,
  actorId: string,
): Promise<
  Array<{ action: string; merchant_id: string | null; details: Record<string, unknown> }>
> {
  return api.dataSource.query(
    `SELECT action, merchant_id, details FROM console_audit_log
      WHERE actor_id = $1 ORDER BY created_at DESC, id DESC`,
    [actorId],
  );
}

/** A well-formed code the authenticator shows at no step near now. */
export function wrongCodeOf(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2, 3].map((steps) => totpCode(secret, steps)));
  for (let n = 0; ; n += 1) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

/** What a console service refused with (its ApiException's code, param and headers), or null. */
export async function refusalOf(
  promise: Promise<unknown>,
): Promise<{ code: string; param?: string; headers?: Record<string, string> } | null> {
  return promise.then(
    () => null,
    (error: ApiException) => ({ code: error.code, param: error.param, headers: error.headers }),
  );
}

/**
 * Whether a backend waits for a row lock on a statement locking console_memberships with `lock`
 * ('FOR SHARE' for a reading one, 'FOR ' for any).
 */
export async function blockedOnMembership(
  dataSource: DataSource,
  lock: 'FOR SHARE' | 'FOR ',
): Promise<boolean> {
  const rows: unknown[] = await dataSource.query(
    `SELECT 1 FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query ILIKE $1
        AND query NOT ILIKE '%pg_stat_activity%'`,
    [`%console_memberships%${lock}%`],
  );
  return rows.length > 0;
}
