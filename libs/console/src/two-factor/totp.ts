import { authenticator } from 'otplib';

/** RFC 6238 as every authenticator app does it: 30 s steps, 6 digits, ±1 step of clock drift. */
export const TOTP_STEP_SECONDS = 30;
const TOTP_WINDOW = 1;
const ISSUER = 'Payments console';

const totpAt = (epochMs: number) =>
  authenticator.clone({ step: TOTP_STEP_SECONDS, digits: 6, window: TOTP_WINDOW, epoch: epochMs });

/** A new shared secret, base32 (what authenticator apps read), 160 bits as RFC 4226 advises. */
export function newTotpSecret(): string {
  return totpAt(Date.now()).generateSecret(20);
}

export function otpauthUrl(accountName: string, secret: string): string {
  return totpAt(Date.now()).keyuri(accountName, ISSUER, secret);
}

/**
 * The time step a code belongs to (within ±1 step of now), or null when it matches none. The
 * caller compares the step with the last one accepted, so a code is never accepted twice.
 */
export function matchingStep(secret: string, code: string, nowMs = Date.now()): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totpAt(nowMs).checkDelta(code, secret);
  if (delta === null) return null;
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS) + delta;
}
