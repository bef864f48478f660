import type { Response } from 'express';

/*
 * bull-board's page is not the console's: it styles with inline style attributes and a <style>
 * element, so the console's strict policy would break it. It gets its own policy, as narrow as
 * it allows: its scripts are its own files (the inline <script> is a JSON data block, which no
 * policy executes), styles may be inline, nothing else is loaded from anywhere but this origin
 * (its Google Fonts link is refused: the system font is fine), and it can never be framed.
 * `base-uri 'self'`: the page sets <base href> to its mount path.
 */
export const QUEUE_BOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

export function setQueueBoardSecurityHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', QUEUE_BOARD_CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('X-Frame-Options', 'DENY');
  // Job data is the service's internals: never kept by a shared cache.
  response.setHeader('Cache-Control', 'no-store');
}
