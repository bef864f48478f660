import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';
import { assertCsrf } from '../../csrf/csrf';
import { readSessionCookie } from '../../http/session-cookie';
import { ConsoleSession, OperatorRole } from '../../sessions/console-session';
import { ConsoleSessionsRepository } from '../../sessions/console-sessions.repository';

/** A fully signed-in operator's session, with the operator's role. */
export type OperatorSession = ConsoleSession & { operatorRole: OperatorRole };

/**
 * The one check of the operator area, shared by its API's guard and the queue board's middleware:
 * a live session of an operator account with both factors done, the CSRF token on unsafe
 * requests, and the admin role where a route changes anything.
 */
@Injectable()
export class OperatorSessions {
  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async resolve(
    request: Request,
    options: { admin?: boolean; checkCsrf?: (session: ConsoleSession) => void } = {},
  ): Promise<OperatorSession> {
    const cookie = readSessionCookie(request, this.config);
    const session = cookie ? await this.sessions.findActive(cookie) : null;
    if (!session) {
      throw new ApiException(ErrorCode.AuthenticationFailed, 'Sign in to the operator area.');
    }
    if (options.checkCsrf) options.checkCsrf(session);
    else assertCsrf(request, session.csrfToken);
    // A merchant's member is never an operator, whatever the e-mail address (separate realm).
    if (session.realm !== 'operator') {
      throw new ApiException(ErrorCode.PermissionDenied, 'This area is for operators only.');
    }
    if (session.state !== 'signed_in') {
      throw new ApiException(
        ErrorCode.TwoFactorRequired,
        'Complete two-factor authentication first.',
      );
    }
    // A missing role reads as the least reach (the migration gives every operator one).
    const operatorRole = session.operatorRole ?? 'support';
    if (options.admin && operatorRole !== 'admin') {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        `Your operator role (${operatorRole}) does not allow this; an admin's is needed.`,
      );
    }
    return { ...session, operatorRole };
  }
}
