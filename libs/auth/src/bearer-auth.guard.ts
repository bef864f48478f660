import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig, ApiException, clientAddressOf, ErrorCode } from '@app/common';
import { ApiKeysService } from './api-keys.service';
import { hasApiKeyShape, isLiveKey, keyPrefixFor } from './api-key-format';
import { AuthenticatedMerchant } from './authenticated-merchant';
import { AuthenticatedRequest } from './current-merchant.decorator';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { IS_PUBLIC_ROUTE } from './public.decorator';

/**
 * Resolves a merchant console session cookie to the merchant it acts for. Provided by the
 * console module (libs/console), which depends on this library: the token keeps the dependency
 * one way. Processes without the console (worker, CLI) have none, and only keys authenticate.
 */
export interface ConsoleSessionAuthenticator {
  /** True when the request carries a console session cookie (whatever its worth). */
  hasSessionCookie(request: Request): boolean;
  /**
   * The merchant of a fully signed-in session of a merchant's team member, as an
   * AuthenticatedMerchant with a console_user actor. Throws an ApiException otherwise: 401 for
   * an ended or half signed-in session, 403 csrf_failed for an unsafe request without the
   * session's CSRF token or from another site.
   */
  authenticate(request: Request): Promise<AuthenticatedMerchant>;
}
export const CONSOLE_SESSION_AUTHENTICATOR = Symbol('CONSOLE_SESSION_AUTHENTICATOR');

/**
 * Authenticates every route not marked @Public(): `Authorization: Bearer sk_...`, or, without that
 * header, a merchant console session cookie (the console calls the same /v1 endpoints).
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly limiter: FailedAuthLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional()
    @Inject(CONSOLE_SESSION_AUTHENTICATOR)
    private readonly consoleSessions?: ConsoleSessionAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // A key, when sent, decides alone: a script's request is never judged by a cookie the
    // client happens to hold.
    if (
      request.headers.authorization === undefined &&
      this.consoleSessions?.hasSessionCookie(request)
    ) {
      // Not counted by the failed-authentication limiter: a session id has 256 random bits, so
      // there is nothing to guess, while a browser whose session just ended sends several
      // requests at once with the stale cookie, and counting those would throttle every key
      // user behind the same address (an office NAT). A refused cookie costs one indexed read.
      request.merchant = await this.consoleSessions.authenticate(request);
      return true;
    }
    try {
      request.merchant = await this.authenticate(request.headers.authorization);
      return true;
    } catch (error) {
      if (!(error instanceof ApiException)) throw error;
      // Only failures are counted and refused: a valid key is never locked out by its neighbours.
      const retryAfter = await this.limiter.recordFailure(clientAddressOf(request));
      if (retryAfter === 0) throw error;
      throw new ApiException(
        ErrorCode.RateLimited,
        `Too many failed authentication attempts from this address. Retry after ${retryAfter} s.`,
        undefined,
        { 'Retry-After': String(retryAfter) },
      );
    }
  }

  private async authenticate(header: string | undefined) {
    const expectedPrefix = keyPrefixFor(this.config.livemode);
    if (!header) {
      throw this.failure(
        `No API key provided. Send the header "Authorization: Bearer ${expectedPrefix}...".`,
      );
    }
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!match) {
      throw this.failure(`Malformed Authorization header. Use "Bearer ${expectedPrefix}...".`);
    }
    const key = match[1];
    if (!hasApiKeyShape(key)) throw this.failure('Invalid API key.');
    if (isLiveKey(key) !== this.config.livemode) {
      throw new ApiException(
        ErrorCode.EnvironmentMismatch,
        this.config.livemode
          ? 'A sandbox key (sk_test_) was sent to the production environment. Use an sk_live_ key.'
          : 'A production key (sk_live_) was sent to the sandbox. Use an sk_test_ key.',
        'Authorization',
      );
    }
    const merchant = await this.apiKeys.authenticate(key);
    if (!merchant) throw this.failure('Invalid API key: unknown or revoked.');
    return merchant;
  }

  private failure(message: string): ApiException {
    return new ApiException(ErrorCode.AuthenticationFailed, message, 'Authorization', {
      'WWW-Authenticate': 'Bearer',
    });
  }
}
