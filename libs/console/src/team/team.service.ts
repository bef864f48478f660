import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { AuditEntry, recordAudit } from '../audit/audit-log';
import { InvitationIssuer } from '../invitations/invitation-issuer';
import { InvitationsRepository } from '../invitations/invitations.repository';
import { ConsoleSession } from '../sessions/console-session';
import { ClientInfo, ConsoleSessionsRepository } from '../sessions/console-sessions.repository';
import { normalizeEmail } from '../users/console-user';
import { assertMayGrant, assertMayTouch, lastOwner } from './team-rules';
import { TeamRepository } from './team.repository';

/** The acting member: a signed-in session with a role at its merchant (the guard checked). */
type Actor = ConsoleSession & { merchantId: string; role: ConsoleRole };

const memberMissing = (userId: string) =>
  new ApiException(ErrorCode.ResourceMissing, `No member '${userId}' in this team.`, 'userId');

/** Settings → Team. Every change is audited in its own transaction. */
@Injectable()
export class TeamService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly team: TeamRepository,
    private readonly invitations: InvitationsRepository,
    private readonly issuer: InvitationIssuer,
    private readonly sessions: ConsoleSessionsRepository,
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

  async invite(actor: Actor, rawEmail: string, role: ConsoleRole, client: ClientInfo) {
    assertMayGrant(actor.role, role);
    const email = normalizeEmail(rawEmail);
    return this.dataSource.transaction(async (manager) => {
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

  async changeRole(actor: Actor, userId: string, role: ConsoleRole, client: ClientInfo) {
    await this.dataSource.transaction(async (manager) => {
      const { target, owners } = await this.team.lockForChange(manager, actor.merchantId, userId);
      if (!target) throw memberMissing(userId);
      assertMayTouch(actor.role, target.role);
      assertMayGrant(actor.role, role);
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
      const { target, owners } = await this.team.lockForChange(manager, actor.merchantId, userId);
      if (!target) throw memberMissing(userId);
      assertMayTouch(actor.role, target.role);
      if (target.role === 'owner' && owners <= 1) throw lastOwner();
      await this.team.remove(manager, actor.merchantId, userId);
      await this.sessions.revokeAtMerchant(manager, userId, actor.merchantId);
      await this.audit(manager, actor, client, {
        action: 'member.removed',
        targetType: 'console_user',
        targetId: userId,
        details: { email: target.email, role: target.role },
      });
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
      if (invitation.role) assertMayTouch(actor.role, invitation.role);
      await this.invitations.revoke(manager, invitationId);
      await this.audit(manager, actor, client, {
        action: 'invitation.revoked',
        targetType: 'invitation',
        targetId: invitationId,
        details: { email: invitation.email, role: invitation.role },
      });
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
