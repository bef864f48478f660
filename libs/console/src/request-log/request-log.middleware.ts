import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { AuthenticatedRequest } from '@app/auth';
import { requestIdOf } from '@app/common';
import { RequestLogWriter } from './request-log.writer';

// The console's own API is the console's business, not the merchant's integration; health and
// metrics are never a merchant's (they are public or behind the metrics token anyway).
const UNLOGGED_PREFIXES = ['/console/api/', '/health', '/metrics'];
// Longer paths are cut: a log row stays small whatever a client sends.
const MAX_PATH_LENGTH = 1_024;
/**
 * A client that went away before its answer was sent (nginx's code for it): the status set so far
 * (often the default 200) was never received, and the log should not say it was.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Logs every authenticated request of a merchant once it has been answered: the merchant is
 * known only after the authentication guard, and the status only at the end. Recording is a push
 * to memory (RequestLogWriter); nothing here waits for the database.
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(private readonly writer: RequestLogWriter) {}

  use(request: AuthenticatedRequest, response: Response, next: NextFunction): void {
    const arrivedAt = new Date();
    const started = process.hrtime.bigint();
    let recorded = false;
    const done = (answered: boolean) => {
      if (recorded) return;
      recorded = true;
      const merchant = request.merchant;
      if (!merchant) return;
      const path = pathWithoutQuery(request.originalUrl);
      if (UNLOGGED_PREFIXES.some((prefix) => path.startsWith(prefix))) return;
      const actor = merchant.actor;
      this.writer.record({
        merchantId: merchant.merchantId,
        livemode: merchant.livemode,
        method: request.method,
        path,
        status: answered ? response.statusCode : CLIENT_CLOSED_REQUEST,
        actor: actor.type,
        apiKeyId: actor.type === 'api_key' ? actor.apiKeyId : null,
        consoleUserId: actor.type === 'console_user' ? actor.userId : null,
        requestId: requestIdOf(request),
        latencyMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        createdAt: arrivedAt,
      });
    };
    // 'finish' comes first when the answer was sent; 'close' alone when the client went away.
    response.once('finish', () => done(true));
    response.once('close', () => done(response.writableFinished));
    next();
  }
}

/** Never the query string: it can hold addresses, amounts and, worse, secrets. */
export function pathWithoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return (end === -1 ? url : url.slice(0, end)).slice(0, MAX_PATH_LENGTH);
}
