import { DataSource } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { InvitationIssuer } from '../../libs/console/src/invitations/invitation-issuer';
import { InvitationsRepository } from '../../libs/console/src/invitations/invitations.repository';
import { ConsoleSessionsRepository } from '../../libs/console/src/sessions/console-sessions.repository';
import { TeamRepository } from '../../libs/console/src/team/team.repository';
import { TeamService } from '../../libs/console/src/team/team.service';
import { TwoFactorVerifier } from '../../libs/console/src/two-factor/two-factor-verifier';
import {
  auditOf,
  blockedOnMembership,
  ConsoleMember,
  refusalOf,
  SAME_ORIGIN,
  signedInMember,
  totpCode,
  uniqueEmail,
  wrongCodeOf,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

type Actor = Parameters<TeamService['invite']>[0];
const CLIENT = { ip: '203.0.113.10', userAgent: 'jest' };

/**
 * Review of issue 25, findings 3 and 11: a change is authorized on the actor's membership as it
 * is when the change commits; a removed member's invitations go with them; and in production,
 * granting a role that manages keys or the team asks for a fresh two-factor code.
 */
describe('Console team: who may change it, and when (issue 25 review)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Team Authority Shop' });
    owner = await signedInMember(api, merchant, 'owner');
  });

  afterAll(() => api.close());

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const pendingOf = (inviter: ConsoleMember) =>
    api.count(
      'console_invitations',
      `invited_by_user_id = $1 AND merchant_id = $2 AND accepted_at IS NULL
         AND revoked_at IS NULL AND expires_at > now()`,
      [inviter.userId, merchant.id],
    );

  it("revokes a removed member's pending invitations with the removal", async () => {
    const admin = await signedInMember(api, merchant, 'admin', 'departing-admin');
    const sent = await admin.agent
      .post('/console/api/team/invitations')
      .set(unsafe(admin))
      .send({ email: uniqueEmail('left-behind'), role: 'admin' })
      .expect(201);
    const token = /#token=(.+)$/.exec(sent.body.invitation_url)![1];
    expect(await pendingOf(admin)).toBe(1);
    await owner.agent
      .delete(`/console/api/team/members/${admin.userId}`)
      .set(unsafe(owner))
      .expect(204);
    expect(await pendingOf(admin)).toBe(0);
    await owner.agent
      .post('/console/api/invitations/lookup')
      .set(SAME_ORIGIN)
      .send({ token })
      .expect(404);
    const team = await owner.agent.get('/console/api/team').expect(200);
    expect(team.body.invitations.map((i: { invited_by: string }) => i.invited_by)).not.toContain(
      admin.email,
    );
  });

  it('authorizes on the membership as it is at commit: an invitation by an admin being removed is refused', async () => {
    const admin = await signedInMember(api, merchant, 'admin', 'removed-admin');
    const invitations = () =>
      api.count('console_invitations', 'invited_by_user_id = $1', [admin.userId]);
    const removal = api.dataSource.createQueryRunner();
    await removal.connect();
    await removal.startTransaction();
    try {
      await removal.query(
        `DELETE FROM console_memberships WHERE user_id = $1 AND merchant_id = $2`,
        [admin.userId, merchant.id],
      );
      const inFlight = admin.agent
        .post('/console/api/team/invitations')
        .set(unsafe(admin))
        .send({ email: uniqueEmail('smuggled'), role: 'admin' })
        .then();
      await waitFor(
        async () =>
          (await blockedOnMembership(api.dataSource, 'FOR ')) || (await invitations()) > 0,
        30_000,
        'the invitation waits for the removal (or was issued)',
      );
      await removal.commitTransaction();
      const answer = await inFlight;
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('permission_denied');
    } finally {
      if (removal.isTransactionActive) await removal.rollbackTransaction();
      await removal.release();
    }
    expect(await invitations()).toBe(0);
  });

  it('uses the role the membership holds, not the one the session read', async () => {
    const admin = await signedInMember(api, merchant, 'admin', 'demoted-admin');
    const viewer = await signedInMember(api, merchant, 'viewer', 'target-viewer');
    await api.dataSource.query(
      `UPDATE console_memberships SET role = 'support' WHERE user_id = $1 AND merchant_id = $2`,
      [admin.userId, merchant.id],
    );
    const team = teamServiceWith(api, api.app.get<AppConfig>(APP_CONFIG));
    const stale = actorOf(merchant, admin, 'admin');
    expect(
      await refusalOf(team.changeRole(stale, viewer.userId, 'developer', CLIENT)),
    ).toMatchObject({ code: 'permission_denied' });
    expect(await refusalOf(team.remove(stale, viewer.userId, CLIENT))).toMatchObject({
      code: 'permission_denied',
    });
    expect(
      await refusalOf(team.invite(stale, uniqueEmail('stale'), 'viewer', CLIENT)),
    ).toMatchObject({ code: 'permission_denied' });
    const [row] = await api.dataSource.query(
      `SELECT role FROM console_memberships WHERE user_id = $1 AND merchant_id = $2`,
      [viewer.userId, merchant.id],
    );
    expect(row.role).toBe('viewer');
  });

  describe('in production', () => {
    it('asks for a fresh code to invite a role that manages keys or the team, not a reader', async () => {
      const inviter = await signedInMember(api, merchant, 'owner', 'live-inviter');
      const team = teamServiceWith(api, { ...api.app.get<AppConfig>(APP_CONFIG), livemode: true });
      const actor = actorOf(merchant, inviter, 'owner');
      for (const role of ['owner', 'admin', 'developer'] as const) {
        expect(
          await refusalOf(team.invite(actor, uniqueEmail(`live-${role}`), role, CLIENT)),
        ).toMatchObject({ code: 'two_factor_required', param: 'two_factor_code' });
      }
      expect(await pendingOf(inviter)).toBe(0);
      await team.invite(actor, uniqueEmail('live-viewer'), 'viewer', CLIENT);
      await team.invite(actor, uniqueEmail('live-support'), 'support', CLIENT);
      expect(await pendingOf(inviter)).toBe(2);
      const invited = await team.invite(
        actor,
        uniqueEmail('live-admin'),
        'admin',
        CLIENT,
        totpCode(inviter.secret, 1),
      );
      expect(invited.invitation_url).toContain('#token=');
      expect(await pendingOf(inviter)).toBe(3);
    });

    it('asks for one to raise a member to such a role, not to lower one', async () => {
      const actorMember = await signedInMember(api, merchant, 'owner', 'live-promoter');
      const member = await signedInMember(api, merchant, 'viewer', 'live-promoted');
      const team = teamServiceWith(api, { ...api.app.get<AppConfig>(APP_CONFIG), livemode: true });
      const actor = actorOf(merchant, actorMember, 'owner');
      expect(
        await refusalOf(team.changeRole(actor, member.userId, 'developer', CLIENT)),
      ).toMatchObject({ code: 'two_factor_required', param: 'two_factor_code' });
      const roleOf = async () =>
        (
          await api.dataSource.query(
            `SELECT role FROM console_memberships WHERE user_id = $1 AND merchant_id = $2`,
            [member.userId, merchant.id],
          )
        )[0].role as ConsoleRole;
      expect(await roleOf()).toBe('viewer');
      await team.changeRole(actor, member.userId, 'support', CLIENT);
      expect(await roleOf()).toBe('support');
      await team.changeRole(actor, member.userId, 'admin', CLIENT, totpCode(actorMember.secret, 1));
      expect(await roleOf()).toBe('admin');
      // Lowering needs no code.
      await team.changeRole(actor, member.userId, 'developer', CLIENT);
      expect(await roleOf()).toBe('developer');
    });

    it('counts wrong codes with the key pages: audited, then 429 after 5', async () => {
      const inviter = await signedInMember(api, merchant, 'owner', 'live-guesser');
      const team = teamServiceWith(api, { ...api.app.get<AppConfig>(APP_CONFIG), livemode: true });
      const actor = actorOf(merchant, inviter, 'owner');
      const wrong = wrongCodeOf(inviter.secret);
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        expect(
          await refusalOf(team.invite(actor, uniqueEmail('guess'), 'owner', CLIENT, wrong)),
        ).toMatchObject({ code: 'parameter_invalid', param: 'two_factor_code' });
      }
      const limited = await refusalOf(
        team.invite(actor, uniqueEmail('guess'), 'owner', CLIENT, totpCode(inviter.secret, 1)),
      );
      expect(limited).toMatchObject({ code: 'rate_limited' });
      expect(Number(limited?.headers?.['Retry-After'])).toBeGreaterThan(0);
      expect(await pendingOf(inviter)).toBe(0);
      const failures = (await auditOf(api, inviter.userId)).filter(
        (entry) => entry.action === 'two_factor.fresh_code_failed',
      );
      expect(failures).toHaveLength(5);
    });
  });
});

function teamServiceWith(api: TestApi, config: AppConfig): TeamService {
  return new TeamService(
    api.app.get(DataSource),
    api.app.get(TeamRepository),
    api.app.get(InvitationsRepository),
    api.app.get(InvitationIssuer),
    api.app.get(ConsoleSessionsRepository),
    api.app.get(TwoFactorVerifier),
    config,
  );
}

/** The session as the guard read it, with the role it saw then. */
function actorOf(merchant: TestMerchant, member: ConsoleMember, role: ConsoleRole): Actor {
  return {
    id: 'test',
    userId: member.userId,
    email: member.email,
    realm: 'merchant',
    state: 'signed_in',
    merchantId: merchant.id,
    role,
  } as Actor;
}
