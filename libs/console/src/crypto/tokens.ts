import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A secret handed to a browser or a person once (session id, invitation token): 256 bits. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * What the database keeps of a token: its SHA-256. Tokens are 256 random bits, so a fast hash is
 * enough (nothing to brute-force) and lets the lookup use an index.
 */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time comparison of two strings (a CSRF token against the session's). */
export function sameSecret(given: string, expected: string): boolean {
  const a = sha256(given);
  const b = sha256(expected);
  return timingSafeEqual(a, b);
}
