import { Inject, Injectable } from '@nestjs/common';
import {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  generateAuthenticationOptions,
  PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { AuditActorType, AuditEntry, recordAudit } from '../audit/audit-log';
import { ConsoleSession } from '../sessions/console-session';
import {
  ClientInfo,
  ConsoleSessionsRepository,
  NewSession,
} from '../sessions/console-sessions.repository';
import { lockedOut } from '../sign-in/lockout';
import { SignInThrottle } from '../sign-in/sign-in-throttle';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { PasskeysRepository, StoredPasskey } from './passkeys.repository';
import { RelyingParty, relyingPartyOf } from './relying-party';

type Outcome =
  | { kind: 'accepted'; session: NewSession }
  | { kind: 'refused'; reason: 'no_challenge' | 'unknown_passkey' | 'signature' | 'sign_counter' };

/** The counter an assertion reports (authenticator data: rpIdHash 32, flags 1, counter 4). */
export function reportedSignCount(response: AuthenticationResponseJSON): number | null {
  try {
    const data = Buffer.from(response.response.authenticatorData, 'base64url');
    return data.length >= 37 ? data.readUInt32BE(33) : null;
  } catch {
    return null;
  }
}

/**
 * "Use a passkey" instead of the authentication code, at sign-in's second step. The challenge is
 * bound to the session between the two steps (the sign-in attempt), used once and valid
 * 5 minutes; the answer must come from PUBLIC_URL's origin for its host as RP ID, and its sign
 * counter must advance (one that goes back is refused and audited: a cloned authenticator).
 * Attempts count in the same lockout as wrong codes, and a success rotates the session exactly
 * as a code does.
 */
@Injectable()
export class PasskeySignInService {
  private readonly relyingParty: RelyingParty;

  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly passkeys: PasskeysRepository,
    private readonly throttle: SignInThrottle,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.relyingParty = relyingPartyOf(config);
  }

  /** Whether the page should offer "Use a passkey". */
  async available(session: ConsoleSession): Promise<boolean> {
    if (session.state !== 'two_factor_pending') return false;
    return this.passkeys.hasAny(this.dataSource.manager, session.userId);
  }

  async options(session: ConsoleSession): Promise<PublicKeyCredentialRequestOptionsJSON> {
    this.assertPending(session);
    return this.dataSource.transaction(async (manager) => {
      const passkeys = await this.passkeys.listOf(manager, session.userId);
      if (passkeys.length === 0) {
        throw new ApiException(ErrorCode.InvalidState, 'This account has no passkey.');
      }
      const options = await generateAuthenticationOptions({
        rpID: this.relyingParty.id,
        allowCredentials: passkeys.map((passkey) => ({
          id: passkey.credentialId,
          transports: passkey.transports as AuthenticatorTransport[],
        })),
        userVerification: 'preferred',
        timeout: 5 * 60_000,
      });
      await this.passkeys.storeChallenge(
        manager,
        session.idHash,
        'sign_in',
        session.userId,
        options.challenge,
      );
      return options;
    });
  }

  async verify(
    session: ConsoleSession,
    response: AuthenticationResponseJSON,
    client: ClientInfo,
  ): Promise<NewSession> {
    this.assertPending(session);
    const user = await this.users.findById(this.dataSource.manager, session.userId);
    if (!user) throw new ApiException(ErrorCode.AuthenticationFailed, 'Sign in again.');
    const actorType: AuditActorType = session.realm === 'operator' ? 'operator' : 'console_user';
    const audit = (
      action: string,
      details: Record<string, unknown>,
      targetId = user.id,
    ): AuditEntry => ({
      merchantId: session.merchantId,
      actorType,
      actorId: user.id,
      action,
      targetType: targetId === user.id ? 'console_user' : 'console_passkey',
      targetId,
      details,
      ip: client.ip,
      userAgent: client.userAgent,
    });
    // Charged first, as a code is: a passkey's failures add up with wrong codes and passwords.
    const attempt = await this.throttle.charge(user.realm, user.email);
    if (attempt.kind === 'refused') {
      await recordAudit(
        this.dataSource.manager,
        audit('user.sign_in_failed', { reason: 'locked', step: 'two_factor', method: 'passkey' }),
      );
      throw lockedOut(attempt.retryAfterSeconds);
    }
    // Taken and committed before the answer is checked: a refused answer spends it as well.
    const challenge = await this.passkeys.takeChallenge(
      this.dataSource.manager,
      session.idHash,
      'sign_in',
      user.id,
    );
    const outcome = await this.dataSource.transaction(async (manager): Promise<Outcome> => {
      const refuse = async (
        reason: Exclude<Outcome, { kind: 'accepted' }>['reason'],
        passkey?: StoredPasskey,
      ): Promise<Outcome> => {
        await recordAudit(
          manager,
          audit('user.sign_in_failed', { reason: 'two_factor', method: 'passkey', check: reason }),
        );
        if (reason === 'sign_counter' && passkey) {
          await recordAudit(
            manager,
            audit(
              'passkey.sign_counter_regressed',
              {
                name: passkey.name,
                stored_sign_count: passkey.signCount,
                reported_sign_count: reportedSignCount(response),
              },
              passkey.id,
            ),
          );
        }
        return { kind: 'refused', reason };
      };
      if (!challenge) return refuse('no_challenge');
      const passkey = await this.passkeys.lockByCredentialId(manager, user.id, response.id);
      if (!passkey) return refuse('unknown_passkey');
      let newSignCount: number;
      try {
        const verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: this.relyingParty.origin,
          expectedRPID: this.relyingParty.id,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(passkey.publicKey),
            counter: passkey.signCount,
            transports: passkey.transports as AuthenticatorTransport[],
          },
          requireUserVerification: false,
        });
        if (!verified.verified) return refuse('signature');
        newSignCount = verified.authenticationInfo.newCounter;
      } catch {
        const reported = reportedSignCount(response);
        const wentBack =
          reported !== null &&
          (reported > 0 || passkey.signCount > 0) &&
          reported <= passkey.signCount;
        return refuse(wentBack ? 'sign_counter' : 'signature', passkey);
      }
      await this.passkeys.recordUse(manager, passkey.id, newSignCount);
      await recordAudit(manager, audit('user.signed_in', { method: 'passkey' }));
      await recordAudit(manager, audit('passkey.used', { name: passkey.name }, passkey.id));
      const rotated = await this.sessions.markTwoFactorVerified(manager, session.idHash);
      await this.throttle.forget(manager, user.realm, user.email);
      return { kind: 'accepted', session: rotated };
    });
    if (outcome.kind === 'accepted') return outcome.session;
    if (attempt.lockRetryAfterSeconds !== null) throw lockedOut(attempt.lockRetryAfterSeconds);
    throw new ApiException(
      ErrorCode.AuthenticationFailed,
      outcome.reason === 'no_challenge'
        ? 'The passkey request expired or was already answered. Try again.'
        : 'The passkey was not accepted. Try again, or enter the code of your authenticator app.',
    );
  }

  private assertPending(session: ConsoleSession): void {
    if (session.state !== 'two_factor_pending') {
      throw new ApiException(
        ErrorCode.InvalidState,
        session.state === 'signed_in'
          ? 'This session is signed in already.'
          : 'Set up two-factor authentication first (POST /console/api/two-factor/enrol).',
      );
    }
  }
}
