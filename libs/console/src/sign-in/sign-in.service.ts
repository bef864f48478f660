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
import { isLocked, lockedOut, recordFailedAttempt } from './lockout';

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
 * argon2 work. Failures count toward the account's lockout; every attempt is audited, in the
 * transaction that counts it. A success opens a new session (a new id every sign-in) that waits
 * for the second factor.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly enrolment: TwoFactorEnrolment,
  ) {}

  async withPassword(
    realm: ConsoleRealm,
    rawEmail: string,
    password: string,
    client: ClientInfo,
  ): Promise<PasswordStepResult> {
    const email = normalizeEmail(rawEmail);
    const user = await this.users.findByEmail(this.dataSource.manager, realm, email);
    const firstMerchant = user ? await this.firstMerchantOf(user) : null;
    if (user && isLocked(user.lockedUntil)) {
      await this.dataSource.transaction((manager) =>
        this.auditFailure(manager, user, firstMerchant, client, 'locked'),
      );
      throw lockedOut(user.lockedUntil);
    }
    const matches = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !matches) {
      const lockedUntil = await this.dataSource.transaction(async (manager) => {
        if (!user) {
          await recordAudit(manager, {
            merchantId: null,
            actorType: 'anonymous',
            actorId: null,
            action: 'user.sign_in_failed',
            details: { email, realm, reason: 'unknown_email' },
            ip: client.ip,
            userAgent: client.userAgent,
          });
          return null;
        }
        await this.auditFailure(manager, user, firstMerchant, client, 'password');
        return recordFailedAttempt(manager, user.id);
      });
      if (lockedUntil) throw lockedOut(lockedUntil);
      throw signInFailed();
    }
    return this.dataSource.transaction(async (manager) => {
      const session = await this.sessions.create(manager, {
        userId: user.id,
        merchantId: firstMerchant,
        client,
      });
      const enrolment = user.totpEnabled ? null : await this.enrolment.start(manager, user);
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

  /** A session opens on the user's oldest membership; the switcher changes it. */
  private async firstMerchantOf(user: ConsoleUser): Promise<string | null> {
    if (user.realm !== 'merchant') return null;
    const memberships = await this.users.memberships(this.dataSource.manager, user.id);
    return memberships[0]?.merchantId ?? null;
  }

  async auditFailure(
    manager: EntityManager,
    user: ConsoleUser,
    merchantId: string | null,
    client: ClientInfo,
    reason: 'password' | 'locked' | 'two_factor',
  ): Promise<void> {
    await recordAudit(manager, {
      merchantId,
      actorType: actorTypeOf(user.realm),
      actorId: user.id,
      action: 'user.sign_in_failed',
      targetType: 'console_user',
      targetId: user.id,
      details: { reason },
      ip: client.ip,
      userAgent: client.userAgent,
    });
  }
}
