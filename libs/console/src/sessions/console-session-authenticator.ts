import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import {
  AuthenticatedMerchant,
  ConsoleSessionAuthenticator,
  MerchantKind,
  ROLE_PERMISSIONS,
} from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { assertCsrf } from '../csrf/csrf';
import { readSessionCookie } from '../http/session-cookie';
import { ConsoleSession } from './console-session';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { assertViewAsReadOnly } from './view-as-read-only';

/**
 * The console's side of the API's authentication guard: a fully signed-in session of a member
 * of a merchant's team calls /v1 as that merchant, with its role's permissions, in this
 * deployment's environment. The role is read on every request, so a change applies at once.
 */
@Injectable()
export class ConsoleSessionMerchantAuthenticator implements ConsoleSessionAuthenticator {
  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  hasSessionCookie(request: Request): boolean {
    return readSessionCookie(request, this.config) !== undefined;
  }

  async authenticate(request: Request): Promise<AuthenticatedMerchant> {
    const cookie = readSessionCookie(request, this.config);
    const session = cookie ? await this.sessions.findActive(cookie) : null;
    if (!session) {
      throw new ApiException(
        ErrorCode.AuthenticationFailed,
        'Your console session has ended. Sign in again.',
      );
    }
    assertCsrf(request, session.csrfToken);
    if (session.state !== 'signed_in') {
      throw new ApiException(
        ErrorCode.TwoFactorRequired,
        'Complete two-factor authentication first.',
      );
    }
    assertViewAsReadOnly(request.method, session);
    return this.merchantOf(session);
  }

  private async merchantOf(session: ConsoleSession): Promise<AuthenticatedMerchant> {
    // Only a merchant's member, or an operator during a view grant (read as a viewer), acts for
    // a merchant: an operator's own session never authenticates /v1.
    const actsForMerchant = session.realm === 'merchant' || session.viewAs !== null;
    if (!actsForMerchant || !session.merchantId || !session.role) {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        'This session acts for no merchant you are a member of. Choose a merchant.',
      );
    }
    const rows: Array<{ kind: MerchantKind; name: string; logo_url: string | null }> =
      await this.dataSource.query(`SELECT kind, name, logo_url FROM merchants WHERE id = $1`, [
        session.merchantId,
      ]);
    const merchant = rows[0];
    if (!merchant) throw new Error(`merchant ${session.merchantId} of a session is missing`);
    return {
      merchantId: session.merchantId,
      kind: merchant.kind,
      name: merchant.name,
      logoUrl: merchant.logo_url,
      livemode: this.config.livemode,
      apiKeyId: null,
      actor: {
        type: 'console_user',
        userId: session.userId,
        sessionId: session.id,
        role: session.role,
        ...(session.viewAs ? { operatorId: session.userId } : {}),
      },
      permissions: ROLE_PERMISSIONS[session.role],
    };
  }
}
