import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleSession } from '../sessions/console-session';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { RecoveryCodes } from '../two-factor/recovery-codes';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { lockedOut } from './lockout';
import { SignInThrottle } from './sign-in-throttle';

const TOTP_CODE = /^[0-9]{6}$/;

/**
 * The second step of sign-in: a TOTP code (each time step once) or an unused recovery code.
 * Attempts count toward the same lockout as passwords (SignInThrottle); every one is audited,
 * those the lock refused unchecked too.
 */
@Injectable()
export class SecondFactorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly verifier: TwoFactorVerifier,
    private readonly recoveryCodes: RecoveryCodes,
    private readonly throttle: SignInThrottle,
  ) {}

  /** On success, the session's new id and CSRF token (rotated: the old ones no longer work). */
  async verify(session: ConsoleSession, rawCode: string, client: ClientInfo): Promise<NewSession> {
    if (session.state !== 'two_factor_pending') {
      throw new ApiException(
        ErrorCode.InvalidState,
        session.state === 'signed_in'
          ? 'This session is signed in already.'
          : 'Set up two-factor authentication first (POST /console/api/two-factor/enrol).',
      );
    }
    const user = await this.users.findById(this.dataSource.manager, session.userId);
    if (!user) throw new ApiException(ErrorCode.AuthenticationFailed, 'Sign in again.');
    // Charged before the code is checked, as the password step does: parallel codes get no more
    // than 5 checks per lock, and the right code meeting a lock set by others waits it out.
    const attempt = await this.throttle.charge(user.realm, user.email);
    const audit = {
      actorType: session.realm === 'operator' ? 'operator' : 'console_user',
    } as const;
    if (attempt.kind === 'refused') {
      // Refused with nothing checked, audited all the same: the owner sees the attack.
      await recordAudit(this.dataSource.manager, {
        merchantId: session.merchantId,
        actorType: audit.actorType,
        actorId: user.id,
        action: 'user.sign_in_failed',
        targetType: 'console_user',
        targetId: user.id,
        details: { reason: 'locked', step: 'two_factor' },
        ip: client.ip,
        userAgent: client.userAgent,
      });
      throw lockedOut(attempt.retryAfterSeconds);
    }
    const code = rawCode.trim();
    const accepted = await this.dataSource.transaction(async (manager) => {
      const method = TOTP_CODE.test(code) ? 'totp' : 'recovery_code';
      const accepted =
        method === 'totp'
          ? await this.verifier.verifyFreshCode(manager, user.id, code)
          : await this.recoveryCodes.consume(manager, user.id, code);
      await recordAudit(manager, {
        merchantId: session.merchantId,
        actorType: audit.actorType,
        actorId: user.id,
        action: accepted ? 'user.signed_in' : 'user.sign_in_failed',
        targetType: 'console_user',
        targetId: user.id,
        details: accepted ? { method } : { reason: 'two_factor', method },
        ip: client.ip,
        userAgent: client.userAgent,
      });
      if (!accepted) return null;
      const rotated = await this.sessions.markTwoFactorVerified(manager, session.idHash);
      await this.throttle.forget(manager, user.realm, user.email);
      return rotated;
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
