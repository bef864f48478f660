import * as argon2 from 'argon2';

/** OWASP's argon2id parameters: 19 MiB, 2 passes, 1 lane (Password Storage Cheat Sheet). */
const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

// Verified against when the e-mail is unknown, so that answer costs the same argon2 work as a
// wrong password and timing does not tell which addresses have accounts.
let dummyHash: Promise<string> | undefined;
function theDummyHash(): Promise<string> {
  dummyHash ??= hashPassword('not the password of anyone: a dummy for equal work');
  return dummyHash;
}

/** True when the password matches; with no hash (unknown user) it does the same work and fails. */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    await argon2.verify(await theDummyHash(), password);
    return false;
  }
  return argon2.verify(hash, password);
}
