import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { ConsoleSession } from '../sessions/console-session';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { SignInThrottle } from '../sign-in/sign-in-throttle';
import { otpauthQrSvg } from './qr-svg';
import { RecoveryCodes } from './recovery-codes';
import { newTotpSecret, otpauthUrl } from './totp';
import { TwoFactorVerifier } from './two-factor-verifier';

/** What the enrolment screen shows: the secret, as text, as a URL and as a QR code. */
export interface TwoFactorEnrolmentStart {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

/**
 * Enrolling TOTP, which every console user must (docs/console.md): a secret is stored sealed
 * but not enabled until the user proves their app produces its codes; then ten recovery codes
 * are issued and the session is fully signed in.
 */
@Injectable()
export class TwoFactorEnrolment {
  constructor(
    private readonly dataSource: DataSource,
    private readonly verifier: TwoFactorVerifier,
    private readonly users: ConsoleUsersRepository,
    private readonly recoveryCodes: RecoveryCodes,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly throttle: SignInThrottle,
  ) {}

  /** A new secret to enrol, for an account just created (no TOTP can be enabled yet). */
  async start(
    manager: EntityManager,
    user: { id: string; email: string },
  ): Promise<TwoFactorEnrolmentStart> {
    const started = await this.startUnlessEnabled(manager, user);
    if (!started) throw new Error(`TOTP of ${user.id} is enabled already`);
    return started;
  }

  /**
   * A new secret to enrol, or null when TOTP is enabled (then nothing is stored): the password
   * step read "not enabled" before argon2, and an enrolment may have finished since.
   */
  async startUnlessEnabled(
    manager: EntityManager,
    user: { id: string; email: string },
  ): Promise<TwoFactorEnrolmentStart | null> {
    const secret = newTotpSecret();
    const stored = await this.users.storePendingTotpSecret(
      manager,
      user.id,
      this.verifier.secretBox.seal(secret, user.id),
    );
    if (!stored) return null;
    const url = otpauthUrl(user.email, secret);
    return { secret, otpauth_url: url, qr_svg: await otpauthQrSvg(url) };
  }

  /**
   * Enables TOTP with the first code; returns the recovery codes, shown this once, and the
   * session's new id and CSRF token (rotated at the privilege change).
   */
  async complete(
    session: ConsoleSession,
    code: string,
    client: ClientInfo,
  ): Promise<{ recoveryCodes: string[]; session: NewSession }> {
    if (session.state !== 'enrolment_pending') {
      throw new ApiException(
        ErrorCode.InvalidState,
        'Two-factor authentication is already set up for this account.',
      );
    }
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.verifier.verifyEnrolmentCode(manager, session.userId, code))) {
        throw new ApiException(
          ErrorCode.ParameterInvalid,
          'That code does not match. Enter the current 6-digit code of your authenticator app.',
          'code',
        );
      }
      await this.users.enableTotp(manager, session.userId);
      const codes = await this.recoveryCodes.issue(manager, session.userId);
      const rotated = await this.sessions.markTwoFactorVerified(manager, session.idHash);
      await this.throttle.forget(manager, session.realm, session.email);
      await recordAudit(manager, {
        merchantId: session.merchantId,
        actorType: session.realm === 'operator' ? 'operator' : 'console_user',
        actorId: session.userId,
        action: 'user.two_factor_enrolled',
        targetType: 'console_user',
        targetId: session.userId,
        ip: client.ip,
        userAgent: client.userAgent,
      });
      return { recoveryCodes: codes, session: rotated };
    });
  }
}
