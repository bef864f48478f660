import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleSession } from '../sessions/console-session';
import { ClientInfo, ConsoleSessionsRepository } from '../sessions/console-sessions.repository';
import { RecoveryCodes } from '../two-factor/recovery-codes';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { clearFailedAttempts, isLocked, lockedOut, recordFailedAttempt } from './lockout';

const TOTP_CODE = /^[0-9]{6}$/;

/**
 * The second step of sign-in: a TOTP code (each time step once) or an unused recovery code.
 * Failures count toward the same lockout as wrong passwords; success and failure are audited.
 */
@Injectable()
export class SecondFactorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly verifier: TwoFactorVerifier,
    private readonly recoveryCodes: RecoveryCodes,
  ) {}

  async verify(session: ConsoleSession, rawCode: string, client: ClientInfo): Promise<void> {
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
    if (isLocked(user.lockedUntil)) throw lockedOut(user.lockedUntil);
    const code = rawCode.trim();
    const audit = {
      actorType: session.realm === 'operator' ? 'operator' : 'console_user',
    } as const;
    const outcome = await this.dataSource.transaction(async (manager) => {
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
      if (!accepted) return { lockedUntil: await recordFailedAttempt(manager, user.id) };
      await this.sessions.markTwoFactorVerified(manager, session.idHash);
      await clearFailedAttempts(manager, user.id);
      return null;
    });
    if (outcome?.lockedUntil) throw lockedOut(outcome.lockedUntil);
    if (outcome) {
      throw new ApiException(
        ErrorCode.AuthenticationFailed,
        'Incorrect or already used code. Enter the current code of your authenticator app, or a recovery code.',
        'code',
      );
    }
  }
}
