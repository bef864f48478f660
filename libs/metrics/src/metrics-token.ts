import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries the metrics token (always true when none is set, which
 * only the sandbox allows: the configuration requires METRICS_TOKEN when APP_ENV=production).
 * Compared as digests in constant time, so neither the token nor its length leaks by timing.
 */
export function metricsAccessAllowed(
  token: string | undefined,
  authorization: string | undefined,
): boolean {
  if (!token) return true;
  const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}
