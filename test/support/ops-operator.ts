import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { APP_CONFIG, AppConfig } from '@app/common';
import { inviteFromCli } from '@app/console';
import { PASSWORD, SAME_ORIGIN, tokenOf, totpCode, uniqueEmail } from './console-identity';
import { TestApi } from './test-app';

export interface SignedInOperator {
  agent: TestAgent;
  userId: string;
  email: string;
  csrf: string;
  /** Headers of an unsafe request from the operator's own page. */
  unsafe: Record<string, string>;
}

/** An operator invited as `ops:invite --role` does, signed in with both factors. */
export async function signedInOperator(
  api: TestApi,
  operatorRole: 'admin' | 'support',
): Promise<SignedInOperator> {
  const email = uniqueEmail(`ops-${operatorRole}`);
  const invitation = await inviteFromCli(api.dataSource, api.app.get<AppConfig>(APP_CONFIG), {
    realm: 'operator',
    merchantId: null,
    email,
    role: null,
    operatorRole,
  });
  const agent = request.agent(api.http);
  const accepted = await agent
    .post('/console/api/invitations/accept')
    .set(SAME_ORIGIN)
    .send({ token: tokenOf(invitation.invitation_url), password: PASSWORD });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  const { secret } = accepted.body.two_factor_enrolment as { secret: string };
  const enrolled = await agent
    .post('/console/api/two-factor/enrol')
    .set({ ...SAME_ORIGIN, 'X-CSRF-Token': accepted.body.csrf_token as string })
    .send({ code: totpCode(secret) });
  if (enrolled.status !== 200) throw new Error(`enrol: ${enrolled.status} ${enrolled.text}`);
  // Enrolment rotates the session id and its CSRF token (docs/console.md).
  const csrf = enrolled.body.csrf_token as string;
  const [user]: Array<{ id: string }> = await api.dataSource.query(
    `SELECT id FROM console_users WHERE realm = 'operator' AND email = $1`,
    [email.toLowerCase()],
  );
  return {
    agent,
    userId: user.id,
    email: email.toLowerCase(),
    csrf,
    unsafe: { ...SAME_ORIGIN, 'X-CSRF-Token': csrf },
  };
}

/** Audit entries about one target, oldest first. */
export async function auditOfTarget(
  api: TestApi,
  targetId: string,
): Promise<
  Array<{
    action: string;
    actor_type: string;
    actor_id: string | null;
    merchant_id: string | null;
    details: Record<string, unknown>;
  }>
> {
  return api.dataSource.query(
    `SELECT action, actor_type, actor_id, merchant_id, details FROM console_audit_log
      WHERE target_id = $1 ORDER BY created_at, id`,
    [targetId],
  );
}
