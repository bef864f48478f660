import type { CookieOptions, Request, Response } from 'express';
import { AppConfig } from '@app/common';
import { SESSION_ABSOLUTE_HOURS } from '../sessions/console-session';

/**
 * The session cookie. In production `__Host-` (Secure, Path=/, no Domain: no subdomain can set
 * or read it); the sandbox may run on plain http://localhost, where a Secure cookie is dropped.
 */
export function sessionCookieName(config: Pick<AppConfig, 'livemode'>): string {
  return config.livemode ? '__Host-console_session' : 'console_session';
}

function cookieOptions(config: Pick<AppConfig, 'livemode'>): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure: config.livemode, path: '/' };
}

export function setSessionCookie(
  response: Response,
  config: Pick<AppConfig, 'livemode'>,
  value: string,
): void {
  response.cookie(sessionCookieName(config), value, {
    ...cookieOptions(config),
    maxAge: SESSION_ABSOLUTE_HOURS * 3600 * 1000,
  });
}

export function clearSessionCookie(response: Response, config: Pick<AppConfig, 'livemode'>): void {
  response.clearCookie(sessionCookieName(config), cookieOptions(config));
}

/** The session id the browser sent (cookie-parser has read the Cookie header), or undefined. */
export function readSessionCookie(
  request: Request,
  config: Pick<AppConfig, 'livemode'>,
): string | undefined {
  const cookies = (request as Request & { cookies?: Record<string, unknown> }).cookies;
  const value = cookies?.[sessionCookieName(config)];
  return typeof value === 'string' && value.length > 0 && value.length <= 100 ? value : undefined;
}
