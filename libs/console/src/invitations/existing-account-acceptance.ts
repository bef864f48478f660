import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { verifyPassword } from '../passwords/passwords';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { lockedOut } from '../sign-in/lockout';
import { SignInThrottle } from '../sign-in/sign-in-throttle';
import { SignInService, signInFailed } from '../sign-in/sign-in.service';
import { RecoveryCodes } from '../two-factor/recovery-codes';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { invitationGone } from './invitation-acceptance';
import { InvitationsRepository } from './invitations.repository';

const TOTP_CODE = /^[0-9]{6}$/;

/**
 * A merchant's invitation accepted by an address that has an account already (one account,
 * several merchants; docs/console.md). The invitee proves the account is theirs as a sign-in
 * does, password and second factor, in one request; the attempt is charged to the address's
 * sign-in lockout before anything is checked, and every failure, a refusal by the lock included,
 * is audited as a failed sign-in. On success the membership, the invitation used up, the code used, the lockout
 * forgotten, a signed-in session at the new merchant and the audit entries are one transaction.
 */
@Injectable()
export class ExistingAccountAcceptance {
  constructor(
    private readonly dataSource: DataSource,
    private readonly invitations: InvitationsRepository,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly throttle: SignInThrottle,
    private readonly signIn: SignInService,
    private readonly verifier: TwoFactorVerifier,
    private readonly recoveryCodes: RecoveryCodes,
  ) {}

  async accept(
    input: { token: string; password: string; code: string },
    client: ClientInfo,
  ): Promise<{ session: NewSession; merchantId: string }> {
    const invitation = await this.invitations.findPendingByToken(
      this.dataSource.manager,
      input.token,
    );
    if (!invitation) throw invitationGone();
    if (invitation.realm !== 'merchant' || !invitation.merchantId) {
      // An operator has one account and no merchants: there is nothing to add to it.
      throw new ApiException(
        ErrorCode.InvalidState,
        'An operator invitation creates a new account; accept it with a new password.',
      );
    }
    const realm = invitation.realm;
    const attempt = await this.throttle.charge(realm, invitation.email);
    if (attempt.kind === 'refused') {
      // Audited as the sign-in form audits it: the owner's log shows the account under attack.
      await this.dataSource.transaction(async (manager) => {
        const user = await this.users.findByEmail(manager, realm, invitation.email);
        if (!user) {
          return recordAudit(manager, {
            merchantId: null,
            actorType: 'anonymous',
            actorId: null,
            action: 'user.sign_in_failed',
            details: { realm, reason: 'locked', step: 'password', unknown_email: true },
            ip: client.ip,
            userAgent: client.userAgent,
          });
        }
        const memberships = await this.users.memberships(manager, user.id);
        const merchantId = memberships[0]?.merchantId ?? null;
        return this.signIn.auditFailure(manager, user, merchantId, client, 'locked', 'password');
      });
      throw lockedOut(attempt.retryAfterSeconds);
    }
    const failed = () =>
      attempt.lockRetryAfterSeconds !== null
        ? lockedOut(attempt.lockRetryAfterSeconds)
        : signInFailed();

    const user = await this.users.findByEmail(this.dataSource.manager, realm, invitation.email);
    const matches = await verifyPassword(user?.passwordHash ?? null, input.password);
    if (!user || !matches) {
      await this.dataSource.transaction(async (manager) => {
        if (user) {
          const memberships = await this.users.memberships(manager, user.id);
          return this.signIn.auditFailure(
            manager,
            user,
            memberships[0]?.merchantId ?? null,
            client,
            'password',
          );
        }
        await recordAudit(manager, {
          merchantId: null,
          actorType: 'anonymous',
          actorId: null,
          action: 'user.sign_in_failed',
          details: { realm, reason: 'unknown_email' },
          ip: client.ip,
          userAgent: client.userAgent,
        });
      });
      throw failed();
    }
    if (!user.totpEnabled) {
      // An account whose enrolment was never finished: its owner signs in (and enrols) first.
      await this.dataSource.transaction((manager) => this.throttle.refund(manager, attempt));
      throw new ApiException(
        ErrorCode.InvalidState,
        'Sign in to this account and set up two-factor authentication first, then open the invitation again.',
      );
    }

    const code = input.code.trim();
    const method = TOTP_CODE.test(code) ? 'totp' : 'recovery_code';
    const accepted = await this.dataSource
      .transaction(async (manager) => {
        const verified =
          method === 'totp'
            ? await this.verifier.verifyFreshCode(manager, user.id, code)
            : await this.recoveryCodes.consume(manager, user.id, code);
        const memberships = await this.users.memberships(manager, user.id);
        if (!verified) {
          await this.signIn.auditFailure(
            manager,
            user,
            memberships[0]?.merchantId ?? null,
            client,
            'two_factor',
          );
          return null;
        }
        // Both factors are good: from here on a refusal rolls everything back, the code included.
        const locked = await this.invitations.findPendingByToken(manager, input.token, true);
        if (!locked || !locked.merchantId || !locked.role) throw invitationGone();
        if (memberships.some((m) => m.merchantId === locked.merchantId)) {
          throw new ApiException(
            ErrorCode.ResourceAlreadyExists,
            `You are a member of ${locked.merchantName ?? 'this merchant'} already.`,
          );
        }
        await this.users.addMembership(manager, {
          userId: user.id,
          merchantId: locked.merchantId,
          role: locked.role,
        });
        await this.invitations.markAccepted(manager, locked.id);
        await this.throttle.forget(manager, realm, user.email);
        const session = await this.sessions.create(manager, {
          userId: user.id,
          merchantId: locked.merchantId,
          client,
          twoFactorVerified: true,
        });
        await recordAudit(manager, {
          merchantId: locked.merchantId,
          actorType: 'console_user',
          actorId: user.id,
          action: 'invitation.accepted',
          targetType: 'invitation',
          targetId: locked.id,
          details: { email: locked.email, role: locked.role, existing_account: true },
          ip: client.ip,
          userAgent: client.userAgent,
        });
        await recordAudit(manager, {
          merchantId: locked.merchantId,
          actorType: 'console_user',
          actorId: user.id,
          action: 'user.signed_in',
          targetType: 'console_user',
          targetId: user.id,
          details: { method, via: 'invitation' },
          ip: client.ip,
          userAgent: client.userAgent,
        });
        return { session, merchantId: locked.merchantId };
      })
      .catch((error: unknown) => {
        // Two invitations to one merchant accepted at the same moment: the second finds the first's.
        if ((error as { code?: string }).code === '23505') {
          throw new ApiException(ErrorCode.ResourceAlreadyExists, 'You are a member already.');
        }
        throw error;
      });
    if (!accepted) {
      if (attempt.lockRetryAfterSeconds !== null) throw lockedOut(attempt.lockRetryAfterSeconds);
      throw new ApiException(
        ErrorCode.AuthenticationFailed,
        'Incorrect or already used code. Enter the current code of your authenticator app, or a recovery code.',
        'code',
      );
    }
    return accepted;
  }
}
