import { Inject, Injectable } from '@nestjs/common';
import {
  AuthenticatorTransport,
  generateRegistrationOptions,
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ConsoleSession } from '../sessions/console-session';
import { ClientInfo } from '../sessions/console-sessions.repository';
import { requireFreshCode } from '../step-up/fresh-code';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { PasskeysRepository, StoredPasskey } from './passkeys.repository';
import { PASSKEY_ALGORITHMS, RelyingParty, relyingPartyOf } from './relying-party';

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export const passkeyView = (passkey: StoredPasskey): PasskeyView => ({
  id: passkey.id,
  name: passkey.name,
  created_at: passkey.createdAt.toISOString(),
  last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
});

const actorTypeOf = (session: ConsoleSession) =>
  session.realm === 'operator' ? ('operator' as const) : ('console_user' as const);

/**
 * Settings → Security: a user's own passkeys. Adding one is a registration ceremony in the
 * signed-in session after a fresh TOTP code (a stolen session alone cannot plant a factor);
 * removing one asks for a fresh code too. Both are audited in the change's transaction.
 */
@Injectable()
export class PasskeysService {
  private readonly relyingParty: RelyingParty;

  constructor(
    private readonly dataSource: DataSource,
    private readonly passkeys: PasskeysRepository,
    private readonly verifier: TwoFactorVerifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.relyingParty = relyingPartyOf(config);
  }

  async list(session: ConsoleSession): Promise<PasskeyView[]> {
    return (await this.passkeys.listOf(this.dataSource.manager, session.userId)).map(passkeyView);
  }

  /** The fresh code first, then the options with a challenge bound to this session. */
  async registrationOptions(
    session: ConsoleSession,
    code: string | undefined,
    client: ClientInfo,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    await requireFreshCode(this.dataSource, this.verifier, {
      userId: session.userId,
      merchantId: session.merchantId,
      code,
      purpose: 'add a passkey',
      client,
    });
    return this.dataSource.transaction(async (manager) => {
      const existing = await this.passkeys.listOf(manager, session.userId);
      const options = await generateRegistrationOptions({
        rpName: this.relyingParty.name,
        rpID: this.relyingParty.id,
        userName: session.email,
        userID: new TextEncoder().encode(session.userId),
        attestationType: 'none',
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
        // A passkey already registered is not registered twice.
        excludeCredentials: existing.map((passkey) => ({
          id: passkey.credentialId,
          transports: passkey.transports as AuthenticatorTransport[],
        })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
        timeout: 5 * 60_000,
      });
      await this.passkeys.storeChallenge(
        manager,
        session.idHash,
        'registration',
        session.userId,
        options.challenge,
      );
      return options;
    });
  }

  /** The authenticator's answer to this session's registration challenge: the passkey stored. */
  async register(
    session: ConsoleSession,
    name: string,
    response: RegistrationResponseJSON,
    client: ClientInfo,
  ): Promise<PasskeyView> {
    // Taken (and committed) before the answer is checked: a refused answer spends it too.
    const challenge = await this.passkeys.takeChallenge(
      this.dataSource.manager,
      session.idHash,
      'registration',
      session.userId,
    );
    if (!challenge) {
      throw new ApiException(
        ErrorCode.InvalidState,
        'No passkey registration is waiting, or it expired. Start again with a fresh code.',
      );
    }
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.relyingParty.origin,
        expectedRPID: this.relyingParty.id,
        requireUserVerification: false,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
    } catch {
      verified = { verified: false };
    }
    if (!verified.verified || !verified.registrationInfo) {
      throw new ApiException(
        ErrorCode.ParameterInvalid,
        'The passkey could not be verified. Start again with a fresh code.',
        'response',
      );
    }
    const { credential } = verified.registrationInfo;
    return this.dataSource.transaction(async (manager) => {
      const stored = await this.passkeys.insert(manager, {
        userId: session.userId,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        signCount: credential.counter,
        transports: credential.transports ?? [],
        name: name.trim(),
      });
      if (!stored) {
        throw new ApiException(
          ErrorCode.ResourceAlreadyExists,
          'This passkey is registered already.',
          'response',
        );
      }
      await recordAudit(manager, {
        merchantId: session.merchantId,
        actorType: actorTypeOf(session),
        actorId: session.userId,
        action: 'passkey.added',
        targetType: 'console_passkey',
        targetId: stored.id,
        details: { name: stored.name },
        ip: client.ip,
        userAgent: client.userAgent,
      });
      return passkeyView(stored);
    });
  }

  async remove(
    session: ConsoleSession,
    id: string,
    code: string | undefined,
    client: ClientInfo,
  ): Promise<void> {
    await requireFreshCode(this.dataSource, this.verifier, {
      userId: session.userId,
      merchantId: session.merchantId,
      code,
      purpose: 'remove a passkey',
      client,
    });
    await this.dataSource.transaction(async (manager) => {
      const name = await this.passkeys.remove(manager, session.userId, id);
      if (name === null) {
        throw new ApiException(ErrorCode.ResourceMissing, `No passkey '${id}'.`, 'id');
      }
      await recordAudit(manager, {
        merchantId: session.merchantId,
        actorType: actorTypeOf(session),
        actorId: session.userId,
        action: 'passkey.removed',
        targetType: 'console_passkey',
        targetId: id,
        details: { name },
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
  }
}
