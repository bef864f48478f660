import request from 'supertest';
import {
  ConsoleMember,
  SAME_ORIGIN,
  signedInMember,
  uniqueEmail,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';

describe('Console team and audit log (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;
  let admin: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Team Shop' });
    owner = await signedInMember(api, merchant, 'owner');
    admin = await signedInMember(api, merchant, 'admin');
  });

  afterAll(async () => {
    await api.close();
  });

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });

  it('lists members and pending invitations', async () => {
    const email = uniqueEmail('pending');
    await admin.agent
      .post('/console/api/team/invitations')
      .set(unsafe(admin))
      .send({ email, role: 'developer' })
      .expect(201);
    const team = await owner.agent.get('/console/api/team').expect(200);
    expect(team.body.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: owner.userId, role: 'owner', two_factor_enabled: true }),
        expect.objectContaining({ user_id: admin.userId, role: 'admin', email: admin.email }),
      ]),
    );
    expect(team.body.invitations).toEqual([
      expect.objectContaining({
        email: email.toLowerCase(),
        role: 'developer',
        invited_by: admin.email,
      }),
    ]);
  });

  it('never lets an inviter grant a role above its own', async () => {
    const refused = await admin.agent
      .post('/console/api/team/invitations')
      .set(unsafe(admin))
      .send({ email: uniqueEmail('too-high'), role: 'owner' })
      .expect(403);
    expect(refused.body.error.code).toBe('permission_denied');
    const developer = await signedInMember(api, merchant, 'developer');
    const noTeam = await developer.agent
      .post('/console/api/team/invitations')
      .set(unsafe(developer))
      .send({ email: uniqueEmail('dev'), role: 'viewer' })
      .expect(403);
    expect(noTeam.body.error.code).toBe('permission_denied');
    await developer.agent.get('/console/api/team').expect(403);
  });

  it('protects owners: only an owner touches one, and the last one stays', async () => {
    const byAdmin = await admin.agent
      .patch(`/console/api/team/members/${owner.userId}`)
      .set(unsafe(admin))
      .send({ role: 'viewer' })
      .expect(403);
    expect(byAdmin.body.error.code).toBe('permission_denied');
    const demoteLast = await owner.agent
      .patch(`/console/api/team/members/${owner.userId}`)
      .set(unsafe(owner))
      .send({ role: 'admin' })
      .expect(409);
    expect(demoteLast.body.error.code).toBe('invalid_state');
    const removeLast = await owner.agent
      .delete(`/console/api/team/members/${owner.userId}`)
      .set(unsafe(owner))
      .expect(409);
    expect(removeLast.body.error.code).toBe('invalid_state');

    // With a second owner, the first may step down.
    await owner.agent
      .patch(`/console/api/team/members/${admin.userId}`)
      .set(unsafe(owner))
      .send({ role: 'owner' })
      .expect(204);
    await owner.agent
      .patch(`/console/api/team/members/${owner.userId}`)
      .set(unsafe(owner))
      .send({ role: 'admin' })
      .expect(204);
    const session = await owner.agent.get('/console/api/session').expect(200);
    expect(session.body.role).toBe('admin');
    await admin.agent
      .patch(`/console/api/team/members/${owner.userId}`)
      .set(unsafe(admin))
      .send({ role: 'owner' })
      .expect(204);
  });

  it('removes a member: their session no longer reaches the merchant', async () => {
    const viewer = await signedInMember(api, merchant, 'viewer');
    await viewer.agent.get('/v1/balances').expect(200);
    await admin.agent
      .delete(`/console/api/team/members/${viewer.userId}`)
      .set(unsafe(admin))
      .expect(204);
    await viewer.agent.get('/v1/balances').expect(401);
    const [entry] = await api.dataSource.query(
      `SELECT actor_id, target_id, details FROM console_audit_log
        WHERE merchant_id = $1 AND action = 'member.removed'`,
      [merchant.id],
    );
    expect(entry).toEqual({
      actor_id: admin.userId,
      target_id: viewer.userId,
      details: { email: viewer.email, role: 'viewer' },
    });
  });

  it("answers 404 for another merchant's member", async () => {
    const other = await api.createMerchant({ name: 'Console Team Other' });
    const stranger = await signedInMember(api, other, 'owner', 'stranger');
    const missing = await owner.agent
      .delete(`/console/api/team/members/${stranger.userId}`)
      .set(unsafe(owner))
      .expect(404);
    expect(missing.body.error.code).toBe('resource_missing');
    await owner.agent
      .patch(`/console/api/team/members/${stranger.userId}`)
      .set(unsafe(owner))
      .send({ role: 'viewer' })
      .expect(404);
    await stranger.agent.get('/v1/balances').expect(200);
  });

  it('revokes a pending invitation', async () => {
    const sent = await owner.agent
      .post('/console/api/team/invitations')
      .set(unsafe(owner))
      .send({ email: uniqueEmail('revoke'), role: 'support' })
      .expect(201);
    const token = /#token=(.+)$/.exec(sent.body.invitation_url)![1];
    const team = await owner.agent.get('/console/api/team').expect(200);
    const invitation = team.body.invitations.find(
      (i: { role: string }) => i.role === 'support',
    ) as { id: string };
    await owner.agent
      .delete(`/console/api/team/invitations/${invitation.id}`)
      .set(unsafe(owner))
      .expect(204);
    await request(api.http)
      .post('/console/api/invitations/lookup')
      .set(SAME_ORIGIN)
      .send({ token })
      .expect(404);
    await owner.agent
      .delete(`/console/api/team/invitations/${invitation.id}`)
      .set(unsafe(owner))
      .expect(404);
  });

  it("shows the merchant's own audit log, newest first, page by page", async () => {
    const first = await owner.agent.get('/console/api/audit-log?limit=3').expect(200);
    expect(first.body).toHaveLength(3);
    expect(first.body[0]).toMatchObject({
      action: 'invitation.revoked',
      actor: { id: owner.userId },
    });
    const link = first.headers.link as string;
    expect(link).toMatch(/rel="next"/);
    const next = /<([^>]+)>; rel="next"/.exec(link)![1];
    expect(next).toContain(`starting_after=${first.body[2].id}`);
    const second = await owner.agent.get(next).expect(200);
    expect(second.body[0].id).not.toBe(first.body[2].id);
    const everything = await owner.agent.get('/console/api/audit-log?limit=100').expect(200);
    expect(everything.body.slice(3, 3 + second.body.length)).toEqual(second.body);
    const actions = everything.body.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'member.role_changed',
        'member.removed',
        'invitation.created',
        'invitation.accepted',
        'user.two_factor_enrolled',
      ]),
    );
    // No entry of the other merchant (its owner's enrolment) is listed.
    const merchants = await api.dataSource.query(
      `SELECT DISTINCT merchant_id FROM console_audit_log WHERE id = ANY($1)`,
      [everything.body.map((entry: { id: string }) => entry.id)],
    );
    expect(merchants).toEqual([{ merchant_id: merchant.id }]);
    const unknown = await owner.agent
      .get('/console/api/audit-log?starting_after=aud_unknown')
      .expect(400);
    expect(unknown.body.error.param).toBe('starting_after');
  });

  it('refuses to change or delete audit entries (append-only trigger)', async () => {
    const [entry] = await api.dataSource.query(
      `SELECT id FROM console_audit_log WHERE merchant_id = $1 LIMIT 1`,
      [merchant.id],
    );
    await expect(
      api.dataSource.query(`UPDATE console_audit_log SET action = 'x' WHERE id = $1`, [entry.id]),
    ).rejects.toThrow(/append-only/);
    await expect(
      api.dataSource.query(`DELETE FROM console_audit_log WHERE id = $1`, [entry.id]),
    ).rejects.toThrow(/append-only/);
  });

  it('switches the session between its memberships', async () => {
    const other = await api.createMerchant({ name: 'Console Team Second Shop' });
    await api.dataSource.query(
      `INSERT INTO console_memberships (user_id, merchant_id, role) VALUES ($1, $2, 'viewer')`,
      [owner.userId, other.id],
    );
    const switched = await owner.agent
      .post('/console/api/session/merchant')
      .set(unsafe(owner))
      .send({ merchant_id: other.id })
      .expect(200);
    expect(switched.body).toMatchObject({
      merchant: { id: other.id, name: 'Console Team Second Shop' },
      role: 'viewer',
    });
    expect(switched.body.memberships).toHaveLength(2);
    await owner.agent.get('/console/api/team').expect(403);
    const stranger = await api.createMerchant({ name: 'Console Team Not Mine' });
    await owner.agent
      .post('/console/api/session/merchant')
      .set(unsafe(owner))
      .send({ merchant_id: stranger.id })
      .expect(404);
    await owner.agent
      .post('/console/api/session/merchant')
      .set(unsafe(owner))
      .send({ merchant_id: merchant.id })
      .expect(200);
    await owner.agent.get('/console/api/team').expect(200);
  });
});
