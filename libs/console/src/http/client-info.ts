import type { Request } from 'express';
import { clientAddressOf } from '@app/common';
import { ClientInfo } from '../sessions/console-sessions.repository';

/** Where a request came from, for sessions and audit entries. */
export function clientInfo(request: Request): ClientInfo {
  const userAgent = request.headers['user-agent'];
  return {
    ip: clientAddressOf(request),
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
  };
}
