import type { Request } from 'express';
import { ApiException, ErrorCode } from '@app/common';
import { sameSecret } from '../crypto/tokens';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// Only the console's own pages: it never sends an unsafe request from anywhere else, so even
// `none` (typed address, bookmark, browser UI) is refused for these.
const ALLOWED_FETCH_SITES = new Set(['same-origin']);

export const CSRF_HEADER = 'x-csrf-token';

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

function csrfFailed(message: string): ApiException {
  return new ApiException(ErrorCode.CsrfFailed, message);
}

/**
 * A browser names the site a request comes from in Sec-Fetch-Site: anything but same-origin
 * (another site, a sibling subdomain, `none`) is refused. Clients that do not send it (older browsers, scripts) are
 * judged by the CSRF token alone.
 */
export function assertSameOriginFetch(request: Request): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && !ALLOWED_FETCH_SITES.has(String(site))) {
    throw csrfFailed('Cross-site requests are refused. Use the console itself.');
  }
}

/**
 * What every unsafe request made with a session cookie must show (console API and /v1 alike):
 * a same-origin fetch, and the session's CSRF token in X-CSRF-Token, compared in constant time.
 */
export function assertCsrf(request: Request, csrfToken: string): void {
  if (!isUnsafeMethod(request.method)) return;
  assertSameOriginFetch(request);
  const given = request.headers[CSRF_HEADER];
  if (typeof given !== 'string' || !sameSecret(given, csrfToken)) {
    throw csrfFailed('Missing or wrong X-CSRF-Token header: send the csrf_token of your session.');
  }
}

/**
 * Before there is a session (sign-in, accepting an invitation): a same-origin fetch with a JSON
 * body. An HTML form cannot send application/json, so another site cannot post these for a user.
 */
export function assertPreSessionRequest(request: Request): void {
  if (!isUnsafeMethod(request.method)) return;
  assertSameOriginFetch(request);
  if (!request.is('application/json')) {
    throw csrfFailed('Send the body as JSON (Content-Type: application/json).');
  }
}
