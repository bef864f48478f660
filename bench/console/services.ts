import { authenticator } from 'otplib';
import { runCli } from '../kit/processes';

const PASSWORD = 'correct horse battery staple';

/** What a browser's fetch from the console's own page sends. */
const SAME_ORIGIN = { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' };

function sessionCookieOf(response: Response): string {
  for (const cookie of response.headers.getSetCookie()) {
    const match = /^(console_session)=([^;]+)/.exec(cookie);
    if (match) return match[2];
  }
  throw new Error(`no console_session cookie in the answer (${response.status})`);
}

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ response: Response; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...SAME_ORIGIN, ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) {
    throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  }
  return { response, json };
}

/**
 * An owner of the merchant, invited by `console:invite`, who accepted and enrolled TOTP through
 * the console API: returns the signed-in session's cookie value (never printed or stored).
 */
export async function signedInOwner(
  url: string,
  merchantId: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const email = `console-bench-${Date.now()}@example.test`;
  const invitation = runCli<{ invitation_url: string }>(
    ['console:invite', '--merchant', merchantId, '--email', email, '--role', 'owner'],
    env,
  );
  const token = /#token=([A-Za-z0-9_-]+)$/.exec(invitation.invitation_url)?.[1];
  if (!token) throw new Error('console:invite answered no token');
  const accepted = await postJson(
    `${url}/console/api/invitations/accept`,
    { token, password: PASSWORD },
    {},
  );
  const secret = (accepted.json.two_factor_enrolment as { secret: string }).secret;
  const code = authenticator.clone({ step: 30, digits: 6, window: 1 }).generate(secret);
  // Enrolment rotates the session id (docs/console.md): the signed-in one is its answer's.
  const enrolled = await postJson(
    `${url}/console/api/two-factor/enrol`,
    { code },
    {
      Cookie: `console_session=${sessionCookieOf(accepted.response)}`,
      'X-CSRF-Token': accepted.json.csrf_token as string,
    },
  );
  return sessionCookieOf(enrolled.response);
}
