import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { hashPassword } from '../passwords/passwords';
import { ClientInfo } from '../sessions/console-sessions.repository';
import { lockedOut } from '../sign-in/lockout';
import { SignInThrottle } from '../sign-in/sign-in-throttle';
import { RecoveryCodes } from '../two-factor/recovery-codes';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { isResetTokenShape } from './password-reset.dto';
import { PasswordResetsRepository, PendingPasswordReset } from './password-resets.repository';

const TOTP_CODE = /^[0-9]{6}$/;

/** One answer for a token that is unknown, used, replaced or expired. */
export function resetLinkGone(): ApiException {
  return new ApiException(
    ErrorCode.ResourceMissing,
    'This reset link is unknown, already used or expired. Ask for a new one.',
  );
}

/**
 * Using a reset link (docs/console.md). The link alone is not enough when the account has
 * two-factor authentication: the code (or a recovery code) is asked too, and kept. Each use is
 * charged to the address's sign-in lockout before anything is checked, and a reset never gives
 * a charge back nor lifts a lock. The new password, the link used up, every session ended and
 * the audit entry commit together.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly resets: PasswordResetsRepository,
    private readonly verifier: TwoFactorVerifier,
    private readonly recoveryCodes: RecoveryCodes,
    private readonly throttle: SignInThrottle,
  ) {}

  /** What the reset page shows: the account, and whether it asks for a code. */
  async lookup(token: string): Promise<{ email: string; two_factor_required: boolean }> {
    const reset = await this.pending(token);
    return { email: reset.email, two_factor_required: reset.totpEnabled };
  }

  async complete(
    token: string,
    password: string,
    rawCode: string | undefined,
    client: ClientInfo,
  ): Promise<void> {
    const found = await this.pending(token);
    const attempt = await this.throttle.charge(found.realm, found.email);
    if (attempt.kind === 'refused') throw lockedOut(attempt.retryAfterSeconds);
    // Hashing takes tens of milliseconds: not while holding the link's row lock.
    const passwordHash = await hashPassword(password);
    const code = rawCode?.trim() ?? '';
    const outcome = await this.dataSource.transaction(async (manager) => {
      const reset = await this.resets.findPendingByToken(manager, token, true);
      if (!reset) throw resetLinkGone();
      const merchantId = await this.resets.firstMerchantOf(manager, reset.userId);
      const audit = {
        merchantId,
        actorType: reset.realm === 'operator' ? 'operator' : 'console_user',
        actorId: reset.userId,
        targetType: 'console_user',
        targetId: reset.userId,
        ip: client.ip,
        userAgent: client.userAgent,
      } as const;
      let method: 'totp' | 'recovery_code' | null = null;
      if (reset.totpEnabled) {
        method = TOTP_CODE.test(code) ? 'totp' : 'recovery_code';
        const accepted =
          code !== '' &&
          (method === 'totp'
            ? await this.verifier.verifyFreshCode(manager, reset.userId, code)
            : await this.recoveryCodes.consume(manager, reset.userId, code));
        if (!accepted) {
          await recordAudit(manager, {
            ...audit,
            action: 'user.password_reset_failed',
            details: { reason: 'two_factor', method },
          });
          return 'wrong_code' as const;
        }
      }
      await this.resets.setPassword(manager, reset.userId, passwordHash);
      await this.resets.markUsed(manager, reset.id);
      const sessionsEnded = await this.resets.endAllSessions(manager, reset.userId);
      await recordAudit(manager, {
        ...audit,
        action: 'user.password_reset',
        details: { email: reset.email, method, sessions_ended: sessionsEnded },
      });
      return 'done' as const;
    });
    if (outcome === 'wrong_code') {
      if (attempt.lockRetryAfterSeconds !== null) throw lockedOut(attempt.lockRetryAfterSeconds);
      throw new ApiException(
        ErrorCode.AuthenticationFailed,
        'Incorrect or already used code. Enter the current code of your authenticator app, or a recovery code.',
        'code',
      );
    }
  }

  private async pending(token: string): Promise<PendingPasswordReset> {
    const reset = isResetTokenShape(token)
      ? await this.resets.findPendingByToken(this.dataSource.manager, token)
      : null;
    if (!reset) throw resetLinkGone();
    return reset;
  }
}
