import type { IncomingMessage } from 'node:http';
import { randomBase62 } from '../ids/base62';

export const REQUEST_ID_HEADER = 'Request-Id';

/** A fresh request id; 17 base62 characters (101 bits) is plenty to correlate logs. */
export function newRequestId(): string {
  return `req_${randomBase62(17)}`;
}

/** The id pino-http assigned to this request (set once per request by the logger middleware). */
export function requestIdOf(request: IncomingMessage): string {
  return String((request as IncomingMessage & { id?: unknown }).id ?? '');
}
