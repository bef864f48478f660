import type { Response } from 'express';

/*
 * The console runs only its own script and style (Vite builds it without inline code), talks only
 * to its own origin and cannot be framed. The two-factor QR code is a data: image.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

/** Headers of every response of the console's HTML and assets. */
export function setConsoleSecurityHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  // The invitation token is in the fragment, never sent; paths stay on this origin.
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('X-Frame-Options', 'DENY');
}
