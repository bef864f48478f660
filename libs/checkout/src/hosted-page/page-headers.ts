import type { Response } from 'express';

/*
 * The page runs only its own script and style, talks only to its own origin, and cannot be framed
 * (a merchant may be allowed to embed it for its own origin later). Logos are merchant https URLs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every response of the hosted page (HTML, state, stream, QR, assets). */
export function setPageSecurityHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  // The URL carries the session id: never send it to a logo host or the merchant's site.
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}

/** Live state must never come from a cache. */
export function setNoStore(response: Response): void {
  response.setHeader('Cache-Control', 'no-store');
}
