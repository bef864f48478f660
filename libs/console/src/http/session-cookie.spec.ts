import type { Response } from 'express';
import { sessionCookieName, setSessionCookie } from './session-cookie';

function cookieSetBy(publicUrl: string): { name: string; options: Record<string, unknown> } {
  let set: { name: string; options: Record<string, unknown> } | undefined;
  const response = {
    cookie: (name: string, _value: string, options: Record<string, unknown>) => {
      set = { name, options };
    },
  } as unknown as Response;
  setSessionCookie(response, { publicUrl }, 'value');
  return set!;
}

describe('the console session cookie', () => {
  it('is __Host- and Secure whenever PUBLIC_URL is https, sandbox or not', () => {
    const cookie = cookieSetBy('https://sandbox.pay.example.com');
    expect(cookie.name).toBe('__Host-console_session');
    expect(cookie.options).toMatchObject({ secure: true, httpOnly: true, path: '/' });
  });

  it('is a plain cookie on an http PUBLIC_URL (a browser drops Secure ones there)', () => {
    const cookie = cookieSetBy('http://localhost:3000');
    expect(cookie.name).toBe('console_session');
    expect(cookie.options).toMatchObject({ secure: false, httpOnly: true });
    expect(sessionCookieName({ publicUrl: 'HTTPS://PAY.EXAMPLE.COM' })).toBe(
      '__Host-console_session',
    );
  });
});
