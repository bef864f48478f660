import { Client } from 'pg';
import { authenticator } from 'otplib';
import { sleep } from '../deposits/clock';
import { apiNodeArgs, hasExited, runCli, startNode, TrackedProcess } from '../deposits/processes';
import { WORKER_MAIN } from '../deposits/settings';
import { freePort } from '../payouts/services';
import { benchEnvironment, DATABASE_URL } from './database';

export const API_MAIN = 'dist/apps/api/apps/api/src/main.js';
// The service's default pay-address pool (PAY_ADDRESS_POOL_TARGET): the worker fills it at start,
// which costs both cores for a while; the measurements wait for it (as bench:api does).
const DEFAULT_POOL_TARGET = 60_000;
const POOL_FILL_TIMEOUT_MS = 900_000;
const PASSWORD = 'correct horse battery staple';

/**
 * The service's own configuration, as the README starts it: nothing a shell carries may tune it
 * (bench:api's default setup clears the same variables). No rate limit is raised either: the
 * console's reads are a person's, far under a merchant's 100 a second.
 */
function serviceEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = benchEnvironment(extra);
  for (const name of ['NODE_ENV', 'LOG_LEVEL', 'DATABASE_POOL_SIZE', 'PAY_ADDRESS_POOL_TARGET']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

export interface Service {
  url: string;
  api: TrackedProcess;
  worker: TrackedProcess;
}

/** The built API (its node flags) and one worker, default configuration and logging. */
export async function startService(
  logBase: string,
  step: (message: string) => void,
): Promise<Service> {
  const port = await freePort();
  const api = startNode(
    'api',
    apiNodeArgs(API_MAIN),
    serviceEnvironment({ PORT: String(port) }),
    `${logBase}.api.log`,
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (hasExited(api)) throw new Error(`The API exited; see ${api.logFile}`);
    if (Date.now() > deadline) throw new Error(`The API did not start; see ${api.logFile}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await sleep(200);
  }
  // Its metrics on a port of its own: another benchmark's worker may hold the default one.
  const worker = startNode(
    'worker',
    [WORKER_MAIN],
    serviceEnvironment({ WORKER_METRICS_PORT: String(await freePort()) }),
    `${logBase}.worker.log`,
  );
  await waitForPool(worker, step);
  // A 503 here means the API found no built console (dist/console): say so rather than time out.
  const page = await fetch(`${url}/console/sign-in`);
  if (page.status !== 200) {
    throw new Error(`GET /console/sign-in answered ${page.status}: ${await page.text()}`);
  }
  return { url, api, worker };
}

async function waitForPool(worker: TrackedProcess, step: (message: string) => void) {
  const started = Date.now();
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    for (;;) {
      const { rows } = await db.query(
        `SELECT coalesce(min(n), 0)::int AS n, count(*)::int AS families FROM (
           SELECT count(*) AS n FROM pay_addresses WHERE claimed_at IS NULL GROUP BY chain_family
         ) counts`,
      );
      if (rows[0].families >= 2 && rows[0].n >= DEFAULT_POOL_TARGET) break;
      if (hasExited(worker)) throw new Error(`The worker exited; see ${worker.logFile}`);
      if (Date.now() - started > POOL_FILL_TIMEOUT_MS) {
        throw new Error(`The worker did not fill the pay-address pool; see ${worker.logFile}`);
      }
      await sleep(2000);
    }
  } finally {
    await db.end();
  }
  step(`  pay-address pool full (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

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
export async function signedInOwner(url: string, merchantId: string): Promise<string> {
  const email = `console-bench-${Date.now()}@example.test`;
  const invitation = runCli<{ invitation_url: string }>(
    ['console:invite', '--merchant', merchantId, '--email', email, '--role', 'owner'],
    benchEnvironment(),
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
