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
    // 'close' also covers a client that went away before the response ended.
    const done = () => {
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
        status: response.statusCode,
        actor: actor.type,
        apiKeyId: actor.type === 'api_key' ? actor.apiKeyId : null,
        consoleUserId: actor.type === 'console_user' ? actor.userId : null,
        requestId: requestIdOf(request),
        latencyMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
        createdAt: arrivedAt,
      });
    };
    response.once('finish', done);
    response.once('close', done);
    next();
  }
}

/** Never the query string: it can hold addresses, amounts and, worse, secrets. */
export function pathWithoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return (end === -1 ? url : url.slice(0, end)).slice(0, MAX_PATH_LENGTH);
}
