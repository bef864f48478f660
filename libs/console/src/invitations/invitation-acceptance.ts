import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { hashPassword } from '../passwords/passwords';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { TwoFactorEnrolment, TwoFactorEnrolmentStart } from '../two-factor/two-factor-enrolment';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { InvitationsRepository } from './invitations.repository';

const INVITATION_GONE = 'This invitation is unknown, already used, revoked or expired.';

export function invitationGone(): ApiException {
  return new ApiException(ErrorCode.ResourceMissing, INVITATION_GONE);
}

/**
 * Accepting an invitation: the account (realm, e-mail, password), the membership, the
 * invitation used up, a session waiting for TOTP enrolment and the audit entry, in one
 * transaction. An address that already has an account of the realm is refused (409): its owner
 * accepts with that account instead (ExistingAccountAcceptance: password and second factor).
 */
@Injectable()
export class InvitationAcceptance {
  constructor(
    private readonly dataSource: DataSource,
    private readonly invitations: InvitationsRepository,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly enrolment: TwoFactorEnrolment,
  ) {}

  async accept(
    token: string,
    password: string,
    client: ClientInfo,
  ): Promise<{ session: NewSession; enrolment: TwoFactorEnrolmentStart }> {
    // Hashing takes tens of milliseconds: not while holding the invitation's row lock.
    if (!(await this.invitations.findPendingByToken(this.dataSource.manager, token))) {
      throw invitationGone();
    }
    const passwordHash = await hashPassword(password);
    return this.dataSource
      .transaction(async (manager) => {
        const invitation = await this.invitations.findPendingByToken(manager, token, true);
        if (!invitation) throw invitationGone();
        if (await this.users.findByEmail(manager, invitation.realm, invitation.email)) {
          throw accountExists(invitation.email);
        }
        const userId = await this.users.create(manager, {
          realm: invitation.realm,
          email: invitation.email,
          passwordHash,
        });
        if (invitation.realm === 'operator') {
          // The operator's role travels on the invitation (ops:invite --role); support if none.
          await manager.query(
            `UPDATE console_users SET operator_role = COALESCE(
               (SELECT operator_role FROM console_invitations WHERE id = $2), 'support')
              WHERE id = $1`,
            [userId, invitation.id],
          );
        }
        if (invitation.merchantId && invitation.role) {
          await this.users.addMembership(manager, {
            userId,
            merchantId: invitation.merchantId,
            role: invitation.role,
          });
        }
        await this.invitations.markAccepted(manager, invitation.id);
        const enrolment = await this.enrolment.start(manager, {
          id: userId,
          email: invitation.email,
        });
        const session = await this.sessions.create(manager, {
          userId,
          merchantId: invitation.merchantId,
          client,
        });
        await recordAudit(manager, {
          merchantId: invitation.merchantId,
          actorType: invitation.realm === 'operator' ? 'operator' : 'console_user',
          actorId: userId,
          action: 'invitation.accepted',
          targetType: 'invitation',
          targetId: invitation.id,
          details: { email: invitation.email, role: invitation.role },
          ip: client.ip,
          userAgent: client.userAgent,
        });
        return { session, enrolment };
      })
      .catch((error: unknown) => {
        // Two invitations of one address accepted at the same moment: the second finds the
        // account the first just created, as it would have a moment later.
        if ((error as { code?: string }).code === '23505') throw accountExists();
        throw error;
      });
  }
}

function accountExists(email?: string): ApiException {
  return new ApiException(
    ErrorCode.ResourceAlreadyExists,
    `An account for ${email ?? 'this e-mail address'} exists already. Sign in with it instead.`,
  );
}
