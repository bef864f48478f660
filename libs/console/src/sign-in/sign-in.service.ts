import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { AuditActorType, recordAudit } from '../audit/audit-log';
import { verifyPassword } from '../passwords/passwords';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { ConsoleRealm, ConsoleUser, normalizeEmail } from '../users/console-user';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { TwoFactorEnrolment, TwoFactorEnrolmentStart } from '../two-factor/two-factor-enrolment';
import { lockedOut } from './lockout';
import { SignInThrottle } from './sign-in-throttle';

export interface PasswordStepResult {
  session: NewSession;
  /** Set when the account has no TOTP yet (invitation accepted, enrolment never finished). */
  enrolment: TwoFactorEnrolmentStart | null;
}

export function signInFailed(): ApiException {
  return new ApiException(ErrorCode.AuthenticationFailed, 'Incorrect email or password.');
}

const actorTypeOf = (realm: ConsoleRealm): AuditActorType =>
  realm === 'operator' ? 'operator' : 'console_user';

/**
 * The password step. A wrong password and an unknown address get the same 401 after the same
 * argon2 work, and lock the same way (SignInThrottle counts per address typed, not per account).
 * Every attempt is audited, those refused by a lock too (with no password checked). A success opens
 * a new session (a new id every sign-in) that waits for the second factor.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly enrolment: TwoFactorEnrolment,
    private readonly throttle: SignInThrottle,
  ) {}

  async withPassword(
    realm: ConsoleRealm,
    rawEmail: string,
    password: string,
    client: ClientInfo,
  ): Promise<PasswordStepResult> {
    const email = normalizeEmail(rawEmail);
    // First, before anything is read or verified: a locked address (known or not) is refused
    // with no work, and at most 5 attempts are ever checked per lock, however many run at once.
    const attempt = await this.throttle.charge(realm, email);
    if (attempt.kind === 'refused') {
      await this.auditRefusedWhileLocked(realm, email, client);
      throw lockedOut(attempt.retryAfterSeconds);
    }
    const user = await this.users.findByEmail(this.dataSource.manager, realm, email);
    const matches = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !matches) {
      await this.dataSource.transaction(async (manager) => {
        if (user) {
          const merchantId = await this.firstMerchantOf(manager, user);
          return this.auditFailure(manager, user, merchantId, client, 'password');
        }
        await recordAudit(manager, {
          merchantId: null,
          actorType: 'anonymous',
          actorId: null,
          action: 'user.sign_in_failed',
          // Never the typed address: it names no account, and may be a password typed into
          // the wrong field, kept for good in an append-only log. The address, when it is an
          // account's, is recorded as that account's failure above.
          details: { realm, reason: 'unknown_email' },
          ip: client.ip,
          userAgent: client.userAgent,
        });
      });
      if (attempt.lockRetryAfterSeconds !== null) throw lockedOut(attempt.lockRetryAfterSeconds);
      throw signInFailed();
    }
    return this.dataSource.transaction(async (manager) => {
      await this.throttle.refund(manager, attempt);
      const firstMerchant = await this.firstMerchantOf(manager, user);
      const session = await this.sessions.create(manager, {
        userId: user.id,
        merchantId: firstMerchant,
        client,
      });
      // null when TOTP was enabled since `user` was read: the session then asks for a code.
      const enrolment = user.totpEnabled
        ? null
        : await this.enrolment.startUnlessEnabled(manager, user);
      await recordAudit(manager, {
        merchantId: firstMerchant,
        actorType: actorTypeOf(user.realm),
        actorId: user.id,
        action: 'user.password_accepted',
        targetType: 'console_user',
        targetId: user.id,
        ip: client.ip,
        userAgent: client.userAgent,
      });
      return { session, enrolment };
    });
  }

  /**
   * An attempt the lock refused, before any password was checked: the owner's log shows the
   * account is under attack. The answer is the same 429 whether or not the address names an
   * account; an unknown one is recorded without the address, as its failures are.
   */
  private async auditRefusedWhileLocked(
    realm: ConsoleRealm,
    email: string,
    client: ClientInfo,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await this.users.findByEmail(manager, realm, email);
      if (user) {
        const merchantId = await this.firstMerchantOf(manager, user);
        return this.auditFailure(manager, user, merchantId, client, 'locked', 'password');
      }
      await recordAudit(manager, {
        merchantId: null,
        actorType: 'anonymous',
        actorId: null,
        action: 'user.sign_in_failed',
        details: { realm, reason: 'locked', step: 'password', unknown_email: true },
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
  }

  /** A session opens on the user's oldest membership; the switcher changes it. */
  private async firstMerchantOf(manager: EntityManager, user: ConsoleUser): Promise<string | null> {
    if (user.realm !== 'merchant') return null;
    const memberships = await this.users.memberships(manager, user.id);
    return memberships[0]?.merchantId ?? null;
  }

  async auditFailure(
    manager: EntityManager,
    user: ConsoleUser,
    merchantId: string | null,
    client: ClientInfo,
    reason: 'password' | 'two_factor' | 'locked',
    /** For `locked`: the step the lock refused, with nothing checked. */
    step?: 'password' | 'two_factor',
  ): Promise<void> {
    await recordAudit(manager, {
      merchantId,
      actorType: actorTypeOf(user.realm),
      actorId: user.id,
      action: 'user.sign_in_failed',
      targetType: 'console_user',
      targetId: user.id,
      details: step ? { reason, step } : { reason },
      ip: client.ip,
      userAgent: client.userAgent,
    });
  }
}
