import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ROLE_PERMISSIONS } from '@app/auth';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { assertCsrf } from '../csrf/csrf';
import { readSessionCookie } from '../http/session-cookie';
import { CONSOLE_ACCESS, ConsoleAccess, ConsoleRequest } from './console-access.metadata';
import { ConsoleSessionsRepository } from './console-sessions.repository';
import { assertViewAsReadOnly } from './view-as-read-only';

/**
 * Console API routes: a live session (cookie), the CSRF token on unsafe requests, the sign-in
 * stage the route needs, and the role's permission at the session's merchant.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: ConsoleSessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access =
      this.reflector.getAllAndOverride<ConsoleAccess | undefined>(CONSOLE_ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? {};
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    const cookie = readSessionCookie(request, this.config);
    const session = cookie ? await this.sessions.findActive(cookie) : null;
    if (!session) {
      throw new ApiException(ErrorCode.AuthenticationFailed, 'Sign in to the console.');
    }
    assertCsrf(request, session.csrfToken);
    const stage = access.stage ?? 'signed_in';
    if (stage === 'signed_in' && session.state !== 'signed_in') {
      throw new ApiException(
        ErrorCode.TwoFactorRequired,
        'Complete two-factor authentication first.',
      );
    }
    // Sign-out (a second_factor route) stays open to an operator viewing as a merchant.
    if (stage === 'signed_in') assertViewAsReadOnly(request.method, session);
    if (access.permission) {
      const allowed =
        (session.realm === 'merchant' || session.viewAs !== null) &&
        session.role !== null &&
        ROLE_PERMISSIONS[session.role].has(access.permission);
      if (!allowed) {
        throw new ApiException(
          ErrorCode.PermissionDenied,
          `Your role (${session.role ?? 'none'}) does not allow ${access.permission}.`,
        );
      }
    }
    request.consoleSession = session;
    return true;
  }
}
