import type { Request } from 'express';

/** The label of requests that matched no route (404s, scanners): one series, not one per URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The route pattern a request matched (`/v1/checkout_sessions/:id`), never its URL: ids in a
 * label would make one time series per object. Read when the response finishes, once Express has
 * set `request.route`; `middlewareRoute` is what it was when the metrics middleware ran.
 */
export function routeLabel(
  request: Pick<Request, 'baseUrl' | 'route'>,
  middlewareRoute?: unknown,
): string {
  // Nest mounts middleware as a catch-all route: still that one at the end means none matched.
  if (request.route === middlewareRoute) return UNMATCHED_ROUTE;
  const path: unknown = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  return `${request.baseUrl ?? ''}${path}` || '/';
}
