import request from 'supertest';
import { QUEUES } from '@app/common';
import { signedInMember } from '../support/console-identity';
import { signedInOperator, SignedInOperator } from '../support/ops-operator';
import { TestApi } from '../support/test-app';

describe('Operator area: queue boards (bull-board, issue 25)', () => {
  let api: TestApi;
  let admin: SignedInOperator;
  let support: SignedInOperator;

  beforeAll(async () => {
    api = await TestApi.start();
    admin = await signedInOperator(api, 'admin');
    support = await signedInOperator(api, 'support');
  });

  afterAll(async () => {
    await api.close();
  });

  it('shows every queue to an operator, read-only on /ops/queues', async () => {
    const { body, headers } = await support.agent.get('/ops/queues/api/queues').expect(200);
    const queues = body.queues as Array<{ name: string; readOnlyMode: boolean }>;
    expect(queues.map((queue) => queue.name).sort()).toEqual(Object.values(QUEUES).sort());
    expect(queues.every((queue) => queue.readOnlyMode)).toBe(true);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const admins = await admin.agent.get('/ops/queues-admin/api/queues').expect(200);
    expect(
      (admins.body.queues as Array<{ readOnlyMode: boolean }>).some((queue) => queue.readOnlyMode),
    ).toBe(false);
  });

  it("serves the board's page under its own policy, not the console's", async () => {
    const page = await support.agent.get('/ops/queues').set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('<base href="/ops/queues/"');
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    // Its scripts are files of its own, served under the same check.
    const script = /<script defer src="([^"]+)"/.exec(page.text)?.[1];
    expect(script).toMatch(/^static\/js\//);
    await support.agent
      .get(`/ops/queues/${script}`)
      .expect(200)
      .expect('Content-Type', /javascript/);
    await request(api.http).get(`/ops/queues/${script}`).expect(401);
  });

  it('refuses no session (401, or to the sign-in page) and a merchant member (403)', async () => {
    const anonymous = await request(api.http).get('/ops/queues/api/queues').expect(401);
    expect(anonymous.body.error.code).toBe('authentication_failed');
    await request(api.http)
      .get('/ops/queues')
      .set('Accept', 'text/html')
      .expect(303)
      .expect('Location', '/ops');
    const merchant = await api.createMerchant({ name: 'Ops Queue Member' });
    const member = await signedInMember(api, merchant, 'owner');
    await member.agent.get('/ops/queues/api/queues').expect(403);
  });

  it('lets only an admin act: support cannot retry, on either board', async () => {
    // A job id no queue holds: other suites' jobs share these queues and are not ours to move.
    // An admin's request reaches bull-board (its 404); a refused one never does (403).
    const retry = `/api/queues/${QUEUES.payouts}/ops-board-no-such-job/retry`;
    const readOnly = await support.agent
      .put(`/ops/queues${retry}`)
      .set(support.unsafe)
      .send({})
      .expect(403);
    expect(readOnly.body.error.code).toBe('permission_denied');
    const notAdmin = await support.agent
      .put(`/ops/queues-admin${retry}`)
      .set(support.unsafe)
      .send({})
      .expect(403);
    expect(notAdmin.body.error.code).toBe('permission_denied');
    // The read-only board refuses admins' writes too: it changes nothing, for anyone.
    await admin.agent.put(`/ops/queues${retry}`).set(admin.unsafe).send({}).expect(403);

    // Without the token or a same-origin fetch, even an admin's request is refused.
    const forged = await admin.agent.put(`/ops/queues-admin${retry}`).send({}).expect(403);
    expect(forged.body.error.code).toBe('csrf_failed');
    const crossSite = await admin.agent
      .put(`/ops/queues-admin${retry}`)
      .set('Sec-Fetch-Site', 'cross-site')
      .send({})
      .expect(403);
    expect(crossSite.body.error.code).toBe('csrf_failed');
    // bull-board's own page sends no token: a same-origin fetch is enough.
    const reached = await admin.agent
      .put(`/ops/queues-admin${retry}`)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({})
      .expect(404);
    expect(JSON.stringify(reached.body)).toMatch(/JOB_NOT_FOUND|not found/i);
  });

  it('refuses even admins the actions that bypass the service: add, edit, empty, obliterate, in any case, and whatever it does not name', async () => {
    const board = `/ops/queues-admin/api/queues/${QUEUES.payouts}`;
    for (const [method, path] of [
      ['post', `${board}/add`],
      ['patch', `${board}/ops-board-no-such-job/update-data`],
      ['put', `${board}/empty`],
      ['put', `${board}/obliterate`],
      // bull-board's router ignores case; so must the refusal.
      ['post', `${board}/ADD`],
      ['put', `${board}/Obliterate`],
      ['put', `${board}/%65mpty`],
      // What is not named is refused too (an allowlist): removing a repeatable schedule.
      ['put', `/ops/queues-admin/api/queues/${QUEUES.payouts}/job-schedulers/any/remove`],
    ] as const) {
      const refused = await admin.agent[method](path).set(admin.unsafe).send({}).expect(403);
      expect(refused.body.error.code).toBe('permission_denied');
    }
  });
});
