import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { consoleRequest } from './http';

/*
 * Passkeys (docs/console.md, Passkeys): the WebAuthn ceremonies run by @simplewebauthn/browser
 * against the console API's options and checks. The browser's own refusals (cancelled, timed
 * out, not allowed) reject with a PasskeyBrowserError, the server's with ApiError.
 */

export interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** The browser did not produce a credential (no support, cancelled, timed out, not allowed). */
export class PasskeyBrowserError extends Error {}

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

async function inBrowser<T>(ceremony: () => Promise<T>): Promise<T> {
  if (!passkeysSupported()) throw new PasskeyBrowserError('unsupported');
  try {
    return await ceremony();
  } catch (error) {
    throw new PasskeyBrowserError(error instanceof Error ? error.name : String(error));
  }
}

export const passkeysApi = {
  list: () => consoleRequest<Passkey[]>('GET', '/console/api/security/passkeys'),

  /** A fresh code, then the browser's registration, then the server's check. */
  add: async (name: string, twoFactorCode: string): Promise<Passkey> => {
    const optionsJSON = await consoleRequest<PublicKeyCredentialCreationOptionsJSON>(
      'POST',
      '/console/api/security/passkeys/registration-options',
      { two_factor_code: twoFactorCode },
    );
    const response = await inBrowser(() => startRegistration({ optionsJSON }));
    return consoleRequest<Passkey>('POST', '/console/api/security/passkeys', { name, response });
  },

  remove: (id: string, twoFactorCode: string) =>
    consoleRequest<unknown>('DELETE', `/console/api/security/passkeys/${encodeURIComponent(id)}`, {
      two_factor_code: twoFactorCode,
    }),

  /** Whether this sign-in attempt may use a passkey (the account has one). */
  signInAvailable: async (): Promise<boolean> =>
    passkeysSupported() &&
    (await consoleRequest<{ available: boolean }>('GET', '/console/api/sign-in/passkey')).available,

  /** The second factor by passkey: the session rotates as after a code. */
  signIn: async (): Promise<unknown> => {
    const optionsJSON = await consoleRequest<PublicKeyCredentialRequestOptionsJSON>(
      'POST',
      '/console/api/sign-in/passkey/options',
    );
    const response = await inBrowser(() => startAuthentication({ optionsJSON }));
    return consoleRequest<unknown>('POST', '/console/api/sign-in/passkey', { response });
  },
};
