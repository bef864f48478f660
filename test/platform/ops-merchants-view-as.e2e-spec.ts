import request from 'supertest';
import { signedInMember } from '../support/console-identity';
import { auditOfTarget, signedInOperator, SignedInOperator } from '../support/ops-operator';
import { TestApi, TestMerchant } from '../support/test-app';

describe('Operator area: merchants, keys and view as merchant (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let admin: SignedInOperator;
  let support: SignedInOperator;

  const REASON = 'Ticket 4711: merchant reports missing payout';

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Ops Viewed Shop' });
    admin = await signedInOperator(api, 'admin');
    support = await signedInOperator(api, 'support');
  });

  afterAll(async () => {
    await api.close();
  });

  describe('merchants and keys', () => {
    it('lists merchants newest first with key counts, paged by starting_after', async () => {
      const older = await api.createMerchant({ name: 'Ops Older' });
      const newer = await api.createMerchant({ name: 'Ops Newer' });
      const first = await support.agent.get('/ops/api/merchants?limit=1').expect(200);
      expect(first.body).toMatchObject({ has_more: true });
      expect(first.body.data).toHaveLength(1);
      // Other suites create merchants meanwhile: look for ours, not at fixed positions.
      const page = await support.agent
        .get(`/ops/api/merchants?limit=100&starting_after=${newer.id}`)
        .expect(200);
      const ids = (page.body.data as Array<{ id: string }>).map((row) => row.id);
      expect(ids).not.toContain(newer.id);
      expect(page.body.data.find((row: { id: string }) => row.id === older.id)).toEqual({
        id: older.id,
        name: 'Ops Older',
        kind: 'direct',
        created_at: expect.any(String),
        keys: { active: 1, revoked: 0 },
      });
      await support.agent.get('/ops/api/merchants?limit=0').expect(400);
      await support.agent.get('/ops/api/merchants?starting_after=mer_nope').expect(404);
    });

    it('shows a merchant with its keys, never a secret', async () => {
      const { body } = await support.agent.get(`/ops/api/merchants/${merchant.id}`).expect(200);
      expect(body).toMatchObject({ id: merchant.id, name: 'Ops Viewed Shop', kind: 'direct' });
      expect(body.keys).toEqual([
        {
          id: merchant.apiKeyId,
          hint: expect.any(String),
          name: null,
          scopes: null,
          created_at: expect.any(String),
          last_used_at: null,
          expires_at: null,
          revoked_at: null,
        },
      ]);
      expect(JSON.stringify(body)).not.toContain(merchant.apiKey);
      await support.agent.get('/ops/api/merchants/mer_nope').expect(404);
    });

    it('revokes a key (admin only): it stops working at once, audited in both logs', async () => {
      const victim = await api.createMerchant({ name: 'Ops Leaked Key' });
      await api.get('/v1/balances', victim).expect(200);
      const path = `/ops/api/merchants/${victim.id}/keys/${victim.apiKeyId}/revoke`;
      const refused = await support.agent.post(path).set(support.unsafe).send({}).expect(403);
      expect(refused.body.error.code).toBe('permission_denied');
      await api.get('/v1/balances', victim).expect(200);
      const { body } = await admin.agent.post(path).set(admin.unsafe).send({}).expect(200);
      expect(body).toEqual({ id: victim.apiKeyId, revoked: true });
      await api.get('/v1/balances', victim).expect(401);
      await admin.agent.post(path).set(admin.unsafe).send({}).expect(409);
      // Another merchant's key id under this merchant is unknown.
      await admin.agent
        .post(`/ops/api/merchants/${merchant.id}/keys/${victim.apiKeyId}/revoke`)
        .set(admin.unsafe)
        .send({})
        .expect(404);
      // In both logs, once: the merchant's and the operators' (merchant_id null).
      const entries = await auditOfTarget(api, victim.apiKeyId);
      expect(entries).toHaveLength(2);
      for (const loggedUnder of [victim.id, null]) {
        expect(entries).toContainEqual({
          action: 'api_key.revoked',
          actor_type: 'operator',
          actor_id: admin.userId,
          merchant_id: loggedUnder,
          details: { operator_email: admin.email, merchant_id: victim.id },
        });
      }
    });
  });

  describe('view as merchant', () => {
    it('validates the reason, the minutes and the merchant', async () => {
      const start = (body: Record<string, unknown>) =>
        support.agent.post('/ops/api/view-as').set(support.unsafe).send(body);
      expect((await start({ merchant_id: merchant.id, reason: 'short' })).status).toBe(400);
      expect(
        (await start({ merchant_id: merchant.id, reason: REASON, minutes: 61 })).body.error.param,
      ).toBe('minutes');
      expect((await start({ merchant_id: 'mer_nope', reason: REASON })).status).toBe(404);
    });

    it('reads as the merchant (viewer) on /v1 and /console/api, refuses every write', async () => {
      const started = await support.agent
        .post('/ops/api/view-as')
        .set(support.unsafe)
        .send({ merchant_id: merchant.id, reason: REASON })
        .expect(201);
      const minutes = (Date.parse(started.body.expires_at) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(14);
      expect(minutes).toBeLessThanOrEqual(15);

      const session = await support.agent.get('/console/api/session').expect(200);
      expect(session.body).toMatchObject({
        merchant: { id: merchant.id, name: 'Ops Viewed Shop' },
        role: 'viewer',
        view_as: {
          operator_email: support.email,
          reason: REASON,
          expires_at: started.body.expires_at,
        },
      });
      const ops = await support.agent.get('/ops/api/session').expect(200);
      expect(ops.body.view_as).toMatchObject({ merchant_id: merchant.id, reason: REASON });

      await support.agent.get('/v1/payouts').expect(200);
      await support.agent.get('/v1/balances').expect(200);
      // The viewer's permissions, not more: no keys, team or audit log.
      await support.agent.get('/console/api/team').expect(403);
      const write = await support.agent
        .post('/v1/webhook-endpoints')
        .set(support.unsafe)
        .send({ url: 'https://example.com/hook', enabled_events: ['*'] })
        .expect(403);
      expect(write.body.error).toMatchObject({
        code: 'permission_denied',
        message: 'Read-only view as merchant.',
      });
      const consoleWrite = await support.agent
        .post('/console/api/session/merchant')
        .set(support.unsafe)
        .send({ merchant_id: merchant.id })
        .expect(403);
      expect(consoleWrite.body.error.message).toBe('Read-only view as merchant.');

      const ended = await support.agent
        .post('/ops/api/view-as/end')
        .set(support.unsafe)
        .send({})
        .expect(200);
      expect(ended.body).toEqual({ ended: true });
      await support.agent.get('/v1/payouts').expect(403);
      const after = await support.agent.get('/console/api/session').expect(200);
      expect(after.body.view_as).toBeNull();

      // Both logs: the operator's (no merchant) and the merchant's, for the start and the end.
      const audit = await auditOfTarget(api, started.body.id);
      expect(audit.map((entry) => [entry.action, entry.merchant_id])).toEqual([
        ['view_as.started', null],
        ['view_as.started', merchant.id],
        ['view_as.ended', null],
        ['view_as.ended', merchant.id],
      ]);
      expect(audit[1].details).toMatchObject({ reason: REASON, operator_email: support.email });
    });

    it('ends by itself when the grant expires', async () => {
      const started = await admin.agent
        .post('/ops/api/view-as')
        .set(admin.unsafe)
        .send({ merchant_id: merchant.id, reason: REASON, minutes: 1 })
        .expect(201);
      await admin.agent.get('/v1/payouts').expect(200);
      // As if the minute had passed (the grant's own row: no other suite reads it).
      await api.dataSource.query(
        `UPDATE operator_view_grants SET expires_at = created_at + interval '1 millisecond'
          WHERE id = $1`,
        [started.body.id],
      );
      // Nothing is cached: the very next request is the operator's own again.
      await admin.agent.get('/v1/payouts').expect(403);
      const session = await admin.agent.get('/console/api/session').expect(200);
      expect(session.body.view_as).toBeNull();
    });

    it("is the operator's session's alone: a merchant's member never sees it", async () => {
      const member = await signedInMember(api, merchant, 'viewer');
      const { body } = await member.agent.get('/console/api/session').expect(200);
      expect(body.view_as).toBeNull();
      await request(api.http).post('/ops/api/view-as').send({}).expect(401);
    });
  });
});
