import request from 'supertest';
import { CONSOLE_COMMANDS } from '../../apps/cli/src/console-commands';
import { UsageError } from '../../apps/cli/src/usage-error';
import { PASSWORD, SAME_ORIGIN, signedInMember, uniqueEmail } from '../support/console-identity';
import { signedInOperator, SignedInOperator } from '../support/ops-operator';
import { TestApi, TestMerchant } from '../support/test-app';

describe('Operator area: access (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let admin: SignedInOperator;
  let support: SignedInOperator;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Ops Access Shop' });
    admin = await signedInOperator(api, 'admin');
    support = await signedInOperator(api, 'support');
  });

  afterAll(async () => {
    await api.close();
  });

  it('describes the operator session: operator, role and CSRF token, no view', async () => {
    const { body } = await admin.agent.get('/ops/api/session').expect(200);
    expect(body).toEqual({
      operator: { id: admin.userId, email: admin.email },
      role: 'admin',
      csrf_token: admin.csrf,
      livemode: false,
      view_as: null,
    });
    const supportView = await support.agent.get('/ops/api/session').expect(200);
    expect(supportView.body.role).toBe('support');
  });

  it('stores the role on the account, and only on operator accounts', async () => {
    const rows: Array<{ id: string; operator_role: string | null }> = await api.dataSource.query(
      `SELECT id, operator_role FROM console_users WHERE id = ANY($1)`,
      [[admin.userId, support.userId]],
    );
    expect(Object.fromEntries(rows.map((row) => [row.id, row.operator_role]))).toEqual({
      [admin.userId]: 'admin',
      [support.userId]: 'support',
    });
    const member = await signedInMember(api, merchant, 'owner');
    await expect(
      api.dataSource.query(`UPDATE console_users SET operator_role = 'admin' WHERE id = $1`, [
        member.userId,
      ]),
    ).rejects.toThrow(/console_users_operator_role_realm/);
  });

  it('refuses no session (401), a merchant member (403) and a half signed-in operator (401)', async () => {
    const anonymous = await request(api.http).get('/ops/api/session').expect(401);
    expect(anonymous.body.error.code).toBe('authentication_failed');

    const member = await signedInMember(api, merchant, 'owner');
    const asMember = await member.agent.get('/ops/api/payout-reviews').expect(403);
    expect(asMember.body.error.code).toBe('permission_denied');

    // Password only: the second factor is still owed.
    const half = request.agent(api.http);
    await half
      .post('/console/api/sign-in')
      .set(SAME_ORIGIN)
      .send({ email: admin.email, password: PASSWORD, realm: 'operator' })
      .expect(200);
    const halfway = await half.get('/ops/api/session').expect(401);
    expect(halfway.body.error.code).toBe('two_factor_required');
  });

  it("answers an unknown /ops/api or queue board path with the API's JSON 404, not the app's page", async () => {
    for (const path of ['/ops/api/nope', '/ops/queues-admin/api/nope', '/ops/queues/api/nope']) {
      const response = await admin.agent.get(path).set('Accept', 'text/html');
      expect({ path, status: response.status, type: response.type }).toEqual({
        path,
        status: 404,
        type: 'application/json',
      });
      expect(response.body.error.code).toBe('route_not_found');
    }
  });

  it('needs the CSRF token on unsafe requests', async () => {
    const missing = await admin.agent
      .post('/ops/api/view-as/end')
      .set(SAME_ORIGIN)
      .send({})
      .expect(403);
    expect(missing.body.error.code).toBe('csrf_failed');
    const crossSite = await admin.agent
      .post('/ops/api/view-as/end')
      .set({ ...admin.unsafe, 'Sec-Fetch-Site': 'cross-site' })
      .send({})
      .expect(403);
    expect(crossSite.body.error.code).toBe('csrf_failed');
    await admin.agent.post('/ops/api/view-as/end').set(admin.unsafe).send({}).expect(200);
  });

  it("never authenticates /v1 with an operator's own session", async () => {
    const refused = await admin.agent.get('/v1/payouts').expect(403);
    expect(refused.body.error.code).toBe('permission_denied');
    const write = await admin.agent
      .post('/v1/webhook-endpoints')
      .set(admin.unsafe)
      .send({ url: 'https://example.com/hook', enabled_events: ['*'] })
      .expect(403);
    expect(write.body.error.code).toBe('permission_denied');
  });

  it('ops:invite takes --role admin|support, support by default', async () => {
    const invite = (options: Record<string, string>) =>
      CONSOLE_COMMANDS['ops:invite'](api.app, options) as Promise<{ invitation_url: string }>;
    const roleOf = async (email: string) => {
      const [row]: Array<{ operator_role: string }> = await api.dataSource.query(
        `SELECT operator_role FROM console_invitations WHERE email = $1`,
        [email.toLowerCase()],
      );
      return row.operator_role;
    };
    const adminEmail = uniqueEmail('cli-admin');
    const defaultEmail = uniqueEmail('cli-default');
    await invite({ email: adminEmail, role: 'admin' });
    await invite({ email: defaultEmail });
    expect(await roleOf(adminEmail)).toBe('admin');
    expect(await roleOf(defaultEmail)).toBe('support');
    await expect(invite({ email: uniqueEmail('cli-owner'), role: 'owner' })).rejects.toThrow(
      UsageError,
    );
  });
});
