import type { CookieOptions, Request, Response } from 'express';
import { AppConfig } from '@app/common';
import { SESSION_ABSOLUTE_HOURS } from '../sessions/console-session';

type CookieConfig = Pick<AppConfig, 'publicUrl'>;

/**
 * Whether the console is served over https, judged by PUBLIC_URL (not by livemode: a public
 * sandbox is served over https too, and needs the same protection).
 */
function servedOverHttps(config: CookieConfig): boolean {
  return config.publicUrl.toLowerCase().startsWith('https://');
}

/**
 * The session cookie. Over https `__Host-` (Secure, Path=/, no Domain: no subdomain can set or
 * read it, and it never travels over plain http); a sandbox on http://localhost gets a plain
 * cookie, since a browser drops a Secure one there.
 */
export function sessionCookieName(config: CookieConfig): string {
  return servedOverHttps(config) ? '__Host-console_session' : 'console_session';
}

function cookieOptions(config: CookieConfig): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure: servedOverHttps(config), path: '/' };
}

export function setSessionCookie(response: Response, config: CookieConfig, value: string): void {
  response.cookie(sessionCookieName(config), value, {
    ...cookieOptions(config),
    maxAge: SESSION_ABSOLUTE_HOURS * 3600 * 1000,
  });
}

export function clearSessionCookie(response: Response, config: CookieConfig): void {
  response.clearCookie(sessionCookieName(config), cookieOptions(config));
}

/** The session id the browser sent (cookie-parser has read the Cookie header), or undefined. */
export function readSessionCookie(request: Request, config: CookieConfig): string | undefined {
  const cookies = (request as Request & { cookies?: Record<string, unknown> }).cookies;
  const value = cookies?.[sessionCookieName(config)];
  return typeof value === 'string' && value.length > 0 && value.length <= 100 ? value : undefined;
}
