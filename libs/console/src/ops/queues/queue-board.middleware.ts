import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ApiException, ErrorCode } from '@app/common';
import { assertSameOriginFetch, CSRF_HEADER, isUnsafeMethod } from '../../csrf/csrf';
import { sameSecret } from '../../crypto/tokens';
import { ConsoleSession } from '../../sessions/console-session';
import { OperatorSessions } from '../access/operator-sessions';
import { setQueueBoardSecurityHeaders } from './queue-board-headers';
import { QueueBoardKind, QueueBoards } from './queue-boards';

/**
 * bull-board's own fetches cannot send our X-CSRF-Token header, so an unsafe request to a board
 * must either carry it (scripts) or come from a browser that says it is same-origin. A browser
 * always sends Sec-Fetch-Site on fetches, and another site's page gets `cross-site`; the
 * SameSite=Lax cookie is not sent on another site's POST anyway. A request with neither is refused.
 */
function boardCsrf(request: Request) {
  return (session: ConsoleSession) => {
    if (!isUnsafeMethod(request.method)) return;
    assertSameOriginFetch(request);
    const token = request.headers[CSRF_HEADER];
    const tokenOk = typeof token === 'string' && sameSecret(token, session.csrfToken);
    if (!tokenOk && request.headers['sec-fetch-site'] !== 'same-origin') {
      throw new ApiException(
        ErrorCode.CsrfFailed,
        'Missing or wrong X-CSRF-Token header: send the csrf_token of your session.',
      );
    }
  };
}

/**
 * The only changes admins make on the board: retry, promote, clean, pause and resume. Anything
 * else is refused, named or not: jobs are made by the code that validates what they carry (a
 * hand-written job or edited data skips that), and emptying or obliterating a queue or removing a
 * schedule drops work that nothing would bring back. An allowlist, matched on the decoded path
 * without regard to case, because bull-board's own router ignores case (`/ADD` reached its add
 * handler past a case-sensitive list of refusals).
 */
const ALLOWED_BOARD_ACTIONS = [
  /^\/api\/queues\/(pause|resume)\/?$/i,
  /^\/api\/queues\/[^/]+\/(retry\/[^/]+|promote|clean\/[^/]+|pause|resume)\/?$/i,
  /^\/api\/queues\/[^/]+\/[^/]+\/(retry|promote|clean)\/?$/i,
];

function isAllowedBoardAction(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  return ALLOWED_BOARD_ACTIONS.some((action) => action.test(decoded));
}

@Injectable()
abstract class QueueBoardMiddleware implements NestMiddleware {
  protected abstract readonly kind: QueueBoardKind;

  constructor(
    private readonly operators: OperatorSessions,
    private readonly boards: QueueBoards,
  ) {}

  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    setQueueBoardSecurityHeaders(response);
    try {
      await this.operators.resolve(request, {
        admin: this.kind === 'admin',
        checkCsrf: boardCsrf(request),
      });
    } catch (error) {
      // A person opening the board without a session is sent to the operator sign-in.
      const signIn = error instanceof ApiException && error.code === ErrorCode.AuthenticationFailed;
      if (signIn && request.method === 'GET' && request.accepts(['json', 'html']) === 'html') {
        return response.redirect(303, '/ops');
      }
      throw error;
    }
    // The read-only board changes nothing, for anyone: bull-board refuses its own actions on a
    // read-only queue, and this refuses the few that are not per queue (pause all, purge metrics).
    if (this.kind === 'readOnly' && isUnsafeMethod(request.method)) {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        `The read-only queue board changes nothing; admins act at /ops/queues-admin.`,
      );
    }
    if (isUnsafeMethod(request.method) && !isAllowedBoardAction(request.path)) {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        'Jobs are added, edited and dropped by the service only (docs/operators.md).',
      );
    }
    this.boards.router(this.kind)(request, response, next);
  }
}

@Injectable()
export class ReadOnlyQueueBoardMiddleware extends QueueBoardMiddleware {
  protected readonly kind = 'readOnly';
}

@Injectable()
export class AdminQueueBoardMiddleware extends QueueBoardMiddleware {
  protected readonly kind = 'admin';
}
