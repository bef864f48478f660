import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { mergeMap, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { AuthenticatedRequest } from '@app/auth';
import { ID_PREFIX } from '@app/common';
import { IDEMPOTENT_REPLAYED_HEADER } from '@app/idempotency';
import { isUnsafeMethod } from '../csrf/csrf';
import { clientInfo } from '../http/client-info';
import { recordAudit } from './audit-log';

/**
 * Changes a console user makes through /v1 (webhook endpoints, payouts, refunds, sub-merchants)
 * go into the console's audit log too, not only into the 30-day request log: action
 * `api.<METHOD> <route path>` (e.g. `api.POST /v1/webhook-endpoints`), the changed object's id
 * (the answer's `id`, else the route's `:id`, as for a 204 DELETE; a sub-merchant's `code`), the
 * user, address and user agent.
 *
 * Written when the handler has succeeded (2xx), before the answer is sent, in its own statement
 * (an idempotent replay is not a new change and is not written again): the /v1 services commit
 * their own transactions, and sharing them would mean threading a manager through every one of
 * them. So a crash between the two can lose an entry (never invent one); a failure to write is
 * logged at error level. Request bodies are never recorded (they may hold addresses); only the method,
 * the route's path (its pattern, not the URL) and the target id.
 */
@Injectable()
export class V1ChangeAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger(V1ChangeAuditInterceptor.name);

  constructor(private readonly dataSource: DataSource) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest & Request>();
    const actor = request.merchant?.actor;
    const isV1 = request.path === '/v1' || request.path.startsWith('/v1/');
    if (!isV1 || !isUnsafeMethod(request.method) || actor?.type !== 'console_user') {
      return next.handle();
    }
    const response = http.getResponse<Response>();
    return next.handle().pipe(
      // Before the answer leaves: a client that hangs up at once must not leave a committed
      // change unaudited (the response's 'finish' never comes for it).
      mergeMap(async (body: unknown) => {
        const status = response.statusCode;
        const replayed = response.getHeader(IDEMPOTENT_REPLAYED_HEADER) === 'true';
        if (status >= 200 && status < 300 && !replayed) {
          await this.record(request, body).catch((error: unknown) =>
            this.logger.error(
              { err: error, method: request.method, route: routePathOf(request) },
              'A console change made through /v1 could not be audited',
            ),
          );
        }
        return body;
      }),
    );
  }

  private async record(request: AuthenticatedRequest & Request, body: unknown): Promise<void> {
    const merchant = request.merchant!;
    const actor = merchant.actor;
    if (actor.type !== 'console_user') return;
    const client = clientInfo(request);
    const target = targetOf(request, body);
    await recordAudit(this.dataSource.manager, {
      merchantId: merchant.merchantId,
      actorType: 'console_user',
      actorId: actor.userId,
      action: `api.${request.method.toUpperCase()} ${routePathOf(request)}`,
      ...(target ? { targetType: target.type, targetId: target.id } : {}),
      details: actor.operatorId ? { operator_id: actor.operatorId } : {},
      ip: client.ip,
      userAgent: client.userAgent,
    });
  }
}

/** The route's pattern (`/v1/webhook-endpoints/:id`), never the URL with its values. */
function routePathOf(request: Request): string {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : request.path;
}

/**
 * The changed object: the answer's `id`, else the route's `:id`; a sub-merchant, which the API
 * names by its code alone, by the answer's or the route's `code`.
 */
function targetOf(request: Request, body: unknown): { type: string; id: string } | null {
  const id = idOf(body) ?? idOf(request.params);
  if (id) return { type: targetTypeOf(id), id };
  if (routePathOf(request).startsWith('/v1/sub-merchants')) {
    const code = codeOf(body) ?? codeOf(request.params);
    if (code) return { type: 'sub_merchant', id: code };
  }
  return null;
}

function codeOf(body: unknown): string | null {
  const code = (body as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.length <= 100 ? code : null;
}

function idOf(body: unknown): string | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' && id.length <= 100 ? id : null;
}

/** The object kind named by its id's prefix, as elsewhere in the log: `we_…` → `webhook_endpoint`. */
const TARGET_TYPE_OF_PREFIX = new Map<string, string>(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [
    prefix,
    kind.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
  ]),
);

function targetTypeOf(id: string): string {
  return TARGET_TYPE_OF_PREFIX.get(id.slice(0, id.indexOf('_'))) ?? 'object';
}
