import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { encodeBase62 } from '../ids/base62';

export const REQUEST_ID_HEADER = 'Request-Id';

/** A fresh request id; 96 random bits is plenty to correlate logs. */
export function newRequestId(): string {
  return `req_${encodeBase62(randomBytes(12))}`;
}

/** The id pino-http assigned to this request (set once per request by the logger middleware). */
export function requestIdOf(request: IncomingMessage): string {
  return String((request as IncomingMessage & { id?: unknown }).id ?? '');
}
