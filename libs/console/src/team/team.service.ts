import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { AuditEntry, recordAudit } from '../audit/audit-log';
import { InvitationIssuer } from '../invitations/invitation-issuer';
import { InvitationsRepository } from '../invitations/invitations.repository';
import { ConsoleSession } from '../sessions/console-session';
import { ClientInfo, ConsoleSessionsRepository } from '../sessions/console-sessions.repository';
import { requireFreshCode } from '../step-up/fresh-code';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { normalizeEmail } from '../users/console-user';
import { assertRoleAllows, lockCurrentRole } from './actor-membership';
import { assertMayGrant, assertMayTouch, grantNeedsFreshCode, lastOwner } from './team-rules';
import { TeamMember, TeamRepository } from './team.repository';

/** The acting member: a signed-in session with a role at its merchant (the guard checked). */
type Actor = ConsoleSession & { merchantId: string; role: ConsoleRole };

const memberMissing = (userId: string) =>
  new ApiException(ErrorCode.ResourceMissing, `No member '${userId}' in this team.`, 'userId');

/**
 * Settings → Team. Every change is audited in its own transaction, and authorized there on the
 * actor's membership as it stands, under a row lock: the role the session read before may be
 * stale (a member removed or demoted meanwhile). The checks on the session's role before the
 * transaction only refuse early, before a fresh two-factor code is spent.
 */
@Injectable()
export class TeamService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly team: TeamRepository,
    private readonly invitations: InvitationsRepository,
    private readonly issuer: InvitationIssuer,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly twoFactor: TwoFactorVerifier,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async overview(merchantId: string) {
    const manager = this.dataSource.manager;
    const [members, invitations] = await Promise.all([
      this.team.list(manager, merchantId),
      this.invitations.listPending(manager, merchantId),
    ]);
    return {
      members: members.map((member) => ({
        user_id: member.userId,
        email: member.email,
        role: member.role,
        two_factor_enabled: member.twoFactorEnabled,
        joined_at: member.joinedAt.toISOString(),
      })),
      invitations: invitations.map((invitation) => ({
        id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedByEmail,
        created_at: invitation.createdAt.toISOString(),
        expires_at: invitation.expiresAt.toISOString(),
      })),
    };
  }

  async invite(
    actor: Actor,
    rawEmail: string,
    role: ConsoleRole,
    client: ClientInfo,
    twoFactorCode?: string,
  ) {
    assertMayGrant(actor.role, role);
    const email = normalizeEmail(rawEmail);
    if (grantNeedsFreshCode(null, role)) {
      await this.requireFreshCode(actor, twoFactorCode, `invite a member as ${role}`, client);
    }
    return this.dataSource.transaction(async (manager) => {
      const actorRole = await lockCurrentRole(
        manager,
        actor.merchantId,
        actor.userId,
        'team:write',
      );
      assertMayGrant(actorRole, role);
      if (await this.team.findByEmail(manager, actor.merchantId, email)) {
        throw new ApiException(
          ErrorCode.ResourceAlreadyExists,
          `${email} is already a member of this team.`,
          'email',
        );
      }
      const invitation = await this.issuer.issue(manager, {
        realm: 'merchant',
        merchantId: actor.merchantId,
        email,
        role,
        invitedByUserId: actor.userId,
      });
      await this.audit(manager, actor, client, {
        action: 'invitation.created',
        targetType: 'invitation',
        targetId: invitation.id,
        details: { email, role },
      });
      return {
        invitation_url: invitation.invitationUrl,
        expires_at: invitation.expiresAt.toISOString(),
      };
    });
  }

  async changeRole(
    actor: Actor,
    userId: string,
    role: ConsoleRole,
    client: ClientInfo,
    twoFactorCode?: string,
  ) {
    assertMayGrant(actor.role, role);
    const roleBefore = await this.team.roleOf(this.dataSource.manager, actor.merchantId, userId);
    // No such member: the transaction answers 404 (or asks, should one appear meanwhile).
    const codeAsked =
      this.config.livemode && roleBefore !== null && grantNeedsFreshCode(roleBefore, role);
    if (codeAsked) {
      await this.requireFreshCode(actor, twoFactorCode, `make a member ${role}`, client);
    }
    await this.dataSource.transaction(async (manager) => {
      const { target, actorRole, owners } = await this.lockForChange(manager, actor, userId);
      assertMayTouch(actorRole, target.role);
      assertMayGrant(actorRole, role);
      // The role changed between the read above and the lock: ask again, with a code.
      if (this.config.livemode && grantNeedsFreshCode(target.role, role) && !codeAsked) {
        await this.requireFreshCode(actor, undefined, `make a member ${role}`, client);
      }
      if (target.role === 'owner' && role !== 'owner' && owners <= 1) throw lastOwner();
      await this.team.setRole(manager, actor.merchantId, userId, role);
      await this.audit(manager, actor, client, {
        action: 'member.role_changed',
        targetType: 'console_user',
        targetId: userId,
        details: { email: target.email, from: target.role, to: role },
      });
    });
  }

  async remove(actor: Actor, userId: string, client: ClientInfo) {
    await this.dataSource.transaction(async (manager) => {
      const { target, actorRole, owners } = await this.lockForChange(manager, actor, userId);
      assertMayTouch(actorRole, target.role);
      if (target.role === 'owner' && owners <= 1) throw lastOwner();
      await this.team.remove(manager, actor.merchantId, userId);
      await this.sessions.revokeAtMerchant(manager, userId, actor.merchantId);
      await this.audit(manager, actor, client, {
        action: 'member.removed',
        targetType: 'console_user',
        targetId: userId,
        details: { email: target.email, role: target.role },
      });
      // Their invitations go with them: none outlives the authority that sent it.
      const revoked = await this.team.revokeInvitationsSentBy(manager, actor.merchantId, userId);
      for (const invitation of revoked) {
        await this.audit(manager, actor, client, {
          action: 'invitation.revoked',
          targetType: 'invitation',
          targetId: invitation.id,
          details: { email: invitation.email, role: invitation.role, reason: 'inviter_removed' },
        });
      }
    });
  }

  async revokeInvitation(actor: Actor, invitationId: string, client: ClientInfo) {
    await this.dataSource.transaction(async (manager) => {
      const invitation = await this.invitations.findPendingOfMerchant(
        manager,
        actor.merchantId,
        invitationId,
      );
      if (!invitation) {
        throw new ApiException(
          ErrorCode.ResourceMissing,
          `No pending invitation '${invitationId}'.`,
          'id',
        );
      }
      const actorRole = await lockCurrentRole(
        manager,
        actor.merchantId,
        actor.userId,
        'team:write',
      );
      if (invitation.role) assertMayTouch(actorRole, invitation.role);
      await this.invitations.revoke(manager, invitationId);
      await this.audit(manager, actor, client, {
        action: 'invitation.revoked',
        targetType: 'invitation',
        targetId: invitationId,
        details: { email: invitation.email, role: invitation.role },
      });
    });
  }

  /** The rows a membership change locks, with the actor's current role; refusals if gone. */
  private async lockForChange(
    manager: EntityManager,
    actor: Actor,
    userId: string,
  ): Promise<{ target: TeamMember; actorRole: ConsoleRole; owners: number }> {
    const locked = await this.team.lockForChange(manager, actor.merchantId, userId, actor.userId);
    if (!locked.actor) {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        'You are no longer a member of this team.',
      );
    }
    assertRoleAllows(locked.actor.role, 'team:write');
    if (!locked.target) throw memberMissing(userId);
    return { target: locked.target, actorRole: locked.actor.role, owners: locked.owners };
  }

  /** In production only, as for live keys: see step-up/fresh-code.ts. */
  private async requireFreshCode(
    actor: Actor,
    code: string | undefined,
    purpose: string,
    client: ClientInfo,
  ): Promise<void> {
    if (!this.config.livemode) return;
    await requireFreshCode(this.dataSource, this.twoFactor, {
      userId: actor.userId,
      merchantId: actor.merchantId,
      code,
      purpose,
      client,
    });
  }

  private audit(
    manager: EntityManager,
    actor: Actor,
    client: ClientInfo,
    entry: Pick<AuditEntry, 'action' | 'targetType' | 'targetId' | 'details'>,
  ) {
    return recordAudit(manager, {
      merchantId: actor.merchantId,
      actorType: 'console_user',
      actorId: actor.userId,
      ip: client.ip,
      userAgent: client.userAgent,
      ...entry,
    });
  }
}
