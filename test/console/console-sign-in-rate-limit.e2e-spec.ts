import request from 'supertest';
import { PASSWORD, SAME_ORIGIN, uniqueEmail } from '../support/console-identity';
import { overrideEnvironment } from '../support/environment';
import { TestApi } from '../support/test-app';

const PER_MINUTE = 3;

/**
 * The console's pre-session routes (sign-in, second factor, enrolment, invitation lookup and
 * acceptance) are limited per client address (issue 25, review finding 6): each request can cost
 * an argon2 verification and an audit row, so an address may send only so many a minute.
 */
describe('Console pre-session rate limit (issue 25)', () => {
  let api: TestApi;

  beforeAll(async () => {
    const environment = overrideEnvironment({
      RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE: String(PER_MINUTE),
      // Counted per client address: each test names its own.
      TRUST_PROXY: 'loopback',
    });
    try {
      api = await TestApi.start();
    } finally {
      environment.restore();
    }
  });

  afterAll(async () => {
    await api?.close();
  });

  const fromAddress = (address: string) => ({ ...SAME_ORIGIN, 'X-Forwarded-For': address });
  it('refuses the sign-in over the limit with 429 and Retry-After, per address', async () => {
    const client = '198.51.100.23';
    const sent: request.Response[] = [];
    for (let attempt = 0; attempt <= PER_MINUTE; attempt += 1) {
      // Each attempt names another address to sign in as: no account lock plays a part.
      sent.push(
        await request(api.http)
          .post('/console/api/sign-in')
          .set(fromAddress(client))
          .send({ email: uniqueEmail('limited'), password: PASSWORD }),
      );
    }
    expect(sent.slice(0, PER_MINUTE).map((response) => response.status)).toEqual(
      Array(PER_MINUTE).fill(401),
    );
    const refused = sent[PER_MINUTE];
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: expect.stringContaining('sign-in requests per minute'),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

    // Another address is counted apart.
    await request(api.http)
      .post('/console/api/sign-in')
      .set(fromAddress('203.0.113.77'))
      .send({ email: uniqueEmail('other'), password: PASSWORD })
      .expect(401);
  });

  it('counts the second factor, enrolment and invitation routes in the same budget', async () => {
    const client = '192.0.2.41';
    const routes = [
      () =>
        request(api.http)
          .post('/console/api/invitations/lookup')
          .send({ token: 'x'.repeat(43) }),
      () =>
        request(api.http)
          .post('/console/api/invitations/accept')
          .send({ token: 'x'.repeat(43), password: PASSWORD }),
      () => request(api.http).post('/console/api/sign-in/two-factor').send({ code: '123456' }),
      () => request(api.http).post('/console/api/two-factor/enrol').send({ code: '123456' }),
    ];
    const statuses: number[] = [];
    for (const send of routes) {
      statuses.push((await send().set(fromAddress(client))).status);
    }
    expect(statuses.slice(0, PER_MINUTE)).not.toContain(429);
    expect(statuses.slice(PER_MINUTE)).toEqual([429]);
  });
});
