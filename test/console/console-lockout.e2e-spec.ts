import request from 'supertest';
import {
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
  uniqueEmail,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { SignInThrottle } from '../../libs/console/src/sign-in/sign-in-throttle';

/** What two refusals share once the per-request id is left out. */
const refusal = (response: request.Response) => ({
  status: response.status,
  error: { ...response.body.error, request_id: undefined },
  retryAfter: response.headers['retry-after'] as string | undefined,
});

/**
 * The sign-in lockout under concurrency and for unknown addresses (issue 25, review findings 2, 4
 * and 5): the lock is checked and the attempt charged before anything is verified, so a burst
 * gets no more guesses than a patient attacker, and an unknown address locks like a known one.
 */
describe('Console sign-in lockout (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Lockout Shop' });
  });

  afterAll(async () => {
    await api.close();
  });

  const signIn = (email: string, password: string) =>
    request.agent(api.http).post('/console/api/sign-in').set(SAME_ORIGIN).send({ email, password });

  /** Failed attempts that were actually checked (a password or code verified, then audited). */
  async function evaluatedFailures(userId: string, reason: 'password' | 'two_factor') {
    const rows: Array<{ n: number }> = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM console_audit_log
        WHERE actor_id = $1 AND action = 'user.sign_in_failed' AND details->>'reason' = $2`,
      [userId, reason],
    );
    return rows[0].n;
  }

  /** Attempts the lock refused with nothing checked: audited too, with the step they were at. */
  async function lockedRefusals(userId: string, step: 'password' | 'two_factor') {
    const rows: Array<{ n: number }> = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM console_audit_log
        WHERE actor_id = $1 AND action = 'user.sign_in_failed'
          AND details = jsonb_build_object('reason', 'locked', 'step', $2::text)`,
      [userId, step],
    );
    return rows[0].n;
  }

  it('checks at most 5 of 20 parallel wrong passwords, and then refuses the right one', async () => {
    const victim = await signedInMember(api, merchant, 'viewer', 'password-burst');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) => signIn(victim.email, `wrong ${attempt}`)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(await evaluatedFailures(victim.userId, 'password')).toBe(5);
    expect(statuses.filter((status) => status === 401)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(16);
    const locked = await signIn(victim.email, PASSWORD).expect(429);
    expect(locked.body.error.code).toBe('rate_limited');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(await evaluatedFailures(victim.userId, 'password')).toBe(5);
    // 15 of the burst and the right password met the lock: audited, not checked.
    expect(await lockedRefusals(victim.userId, 'password')).toBe(16);
  });

  it('checks at most 5 of 20 parallel wrong codes, and then refuses the right one', async () => {
    const victim = await signedInMember(api, merchant, 'viewer', 'code-burst');
    const agent = request.agent(api.http);
    const password = await agent
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email: victim.email, password: PASSWORD })
      .expect(200);
    const headers = { ...SAME_ORIGIN, 'X-CSRF-Token': password.body.csrf_token as string };
    const valid = new Set([-1, 0, 1].map((steps) => totpCode(victim.secret, steps)));
    const wrongCodes: string[] = [];
    for (let n = 0; wrongCodes.length < 20; n += 1) {
      const code = String(n).padStart(6, '0');
      if (!valid.has(code)) wrongCodes.push(code);
    }
    const responses = await Promise.all(
      wrongCodes.map((code) =>
        agent.post('/console/api/sign-in/two-factor').set(headers).send({ code }),
      ),
    );
    expect(await evaluatedFailures(victim.userId, 'two_factor')).toBe(5);
    expect(responses.filter((response) => response.status === 401)).toHaveLength(4);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(16);
    const right = await agent
      .post('/console/api/sign-in/two-factor')
      .set(headers)
      .send({ code: totpCode(victim.secret) })
      .expect(429);
    expect(right.body.error.code).toBe('rate_limited');
    await agent.get('/console/api/session').expect(401);
    expect(await lockedRefusals(victim.userId, 'two_factor')).toBe(16);
  });

  it('locks an unknown address after 5 attempts exactly like a known one', async () => {
    const known = await signedInMember(api, merchant, 'viewer', 'enumeration');
    const unknown = uniqueEmail('nobody-enumeration').toLowerCase();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const [fromKnown, fromUnknown] = await Promise.all([
        signIn(known.email, `wrong ${attempt}`),
        signIn(unknown, `wrong ${attempt}`),
      ]);
      expect(refusal(fromUnknown)).toEqual(refusal(fromKnown));
      expect(fromKnown.status).toBe(attempt < 5 ? 401 : 429);
      if (attempt === 5) expect(fromKnown.headers['retry-after']).toBe('60');
    }
    // Locked: the right password of the known account gets what any password of the unknown gets.
    const userAgent = `lockout-test ${Date.now()} ${Math.random()}`;
    const [locked, lockedUnknown] = await Promise.all([
      signIn(known.email, PASSWORD),
      signIn(unknown, PASSWORD).set('User-Agent', userAgent),
    ]);
    expect(locked.status).toBe(429);
    expect(lockedUnknown.status).toBe(429);
    const withoutSeconds = (response: request.Response) =>
      (response.body.error.message as string).replace(/\d+ s\b/, 'N s');
    expect(withoutSeconds(lockedUnknown)).toEqual(withoutSeconds(locked));
    expect(
      Math.abs(
        Number(locked.headers['retry-after']) - Number(lockedUnknown.headers['retry-after']),
      ),
    ).toBeLessThanOrEqual(1);
    // Both refusals are audited: the account's under it, the unknown address without the address.
    expect(await lockedRefusals(known.userId, 'password')).toBe(1);
    const anonymous: Array<{ actor_type: string; details: Record<string, unknown> }> =
      await api.dataSource.query(
        `SELECT actor_type, details FROM console_audit_log WHERE user_agent = $1`,
        [userAgent],
      );
    expect(anonymous).toEqual([
      {
        actor_type: 'anonymous',
        details: { realm: 'merchant', reason: 'locked', step: 'password', unknown_email: true },
      },
    ]);
    expect(JSON.stringify(anonymous)).not.toContain(unknown);
  });

  /** Changes the address's lockout row (time cannot be waited out in a test). */
  async function setThrottle(email: string, assignments: string) {
    const { realm, emailHmac } = api.app.get(SignInThrottle).keyOf('merchant', email);
    await api.dataSource.query(
      `UPDATE console_sign_in_throttles SET ${assignments} WHERE realm = $1 AND email_hmac = $2`,
      [realm, emailHmac],
    );
  }

  /** Five wrong passwords: four 401, then the lock; returns its Retry-After in seconds. */
  async function lockWithFiveFailures(email: string): Promise<number> {
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await signIn(email, `wrong ${attempt}`).expect(401);
    }
    const locking = await signIn(email, 'wrong 5').expect(429);
    expect(locking.body.error.code).toBe('rate_limited');
    return Number(locking.headers['retry-after']);
  }

  const lockOver = `locked_until = now() - interval '1 second'`;

  it('locks for 1, 5, 15, then 60 minutes at most, and forgets the history after a day', async () => {
    const victim = await signedInMember(api, merchant, 'viewer', 'lockout-growth');
    expect(await lockWithFiveFailures(victim.email)).toBe(60);
    // Even the right password waits.
    await signIn(victim.email, PASSWORD).expect(429);

    await setThrottle(victim.email, lockOver);
    expect(await lockWithFiveFailures(victim.email)).toBe(5 * 60);
    await setThrottle(victim.email, lockOver);
    expect(await lockWithFiveFailures(victim.email)).toBe(15 * 60);
    await setThrottle(victim.email, lockOver);
    expect(await lockWithFiveFailures(victim.email)).toBe(60 * 60);
    await setThrottle(victim.email, lockOver);
    expect(await lockWithFiveFailures(victim.email)).toBe(60 * 60);

    // A day without an attempt: the history is gone and the next lock is the first again.
    await setThrottle(victim.email, `${lockOver}, last_attempt_at = now() - interval '25 hours'`);
    expect(await lockWithFiveFailures(victim.email)).toBe(60);
  });

  it('gives a right password its attempt back, and a full sign-in forgets the failures', async () => {
    const member = await signedInMember(api, merchant, 'viewer', 'lockout-refund');
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await signIn(member.email, `wrong ${attempt}`).expect(401);
    }
    // Right password as the fifth attempt: no lock, and the second factor can still be tried.
    const agent = request.agent(api.http);
    const password = await agent
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email: member.email, password: PASSWORD })
      .expect(200);
    await agent
      .post('/console/api/sign-in/two-factor')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': password.body.csrf_token as string })
      .send({ code: totpCode(member.secret, 1) })
      .expect(200);
    // Signed in: four failures again do not lock.
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await signIn(member.email, `wrong again ${attempt}`).expect(401);
    }
  });
});
