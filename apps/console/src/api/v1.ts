import createClient from 'openapi-fetch';
import { ApiError, csrfHeaders, ErrorBody, scopedPath, subMerchantHeaders } from './http';
import type { paths } from './v1-schema';

/*
 * The public API, called as a merchant's code calls it: the session cookie authenticates the
 * console's calls, with the CSRF token on unsafe ones (docs/console.md).
 */
export const v1 = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

v1.use({
  onRequest({ request }) {
    const headers = { ...csrfHeaders(request.method), ...subMerchantHeaders() };
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    const url = new URL(request.url);
    const scoped = scopedPath(request.method, `${url.pathname}${url.search}`);
    // A GET has no body: the same request to the scoped list's address.
    return scoped === `${url.pathname}${url.search}`
      ? request
      : new Request(new URL(scoped, url.origin), request);
  },
});

/** The data of an openapi-fetch answer, or an ApiError built from its error envelope. */
export function dataOrThrow<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = (result.error as { error?: ErrorBody } | undefined)?.error ?? null;
  throw new ApiError(result.response.status, body, result.response.headers.get('Retry-After'));
}
