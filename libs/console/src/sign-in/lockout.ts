import { EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { updateReturning } from '../db/sql';

/** Failed attempts (passwords and second factors together) that lock an account. */
export const FAILURES_BEFORE_LOCKOUT = 5;
/** Each lockout of an account lasts longer than the previous one, up to a day (minutes). */
export const LOCKOUT_MINUTES = [1, 5, 15, 60, 240, 1440];

/**
 * Counts a failed sign-in step of the user; the fifth in a row locks the account. Returns when
 * the lock ends, or null when the account is not locked. One statement: concurrent failures
 * cannot both read 4 and both write 5.
 */
export async function recordFailedAttempt(
  manager: EntityManager,
  userId: string,
): Promise<Date | null> {
  const rows = await updateReturning<{ locked_until: Date | null; locks: boolean }>(
    manager,
    `UPDATE console_users SET
        failed_sign_ins = CASE WHEN failed_sign_ins + 1 >= $2 THEN 0 ELSE failed_sign_ins + 1 END,
        lockouts = CASE WHEN failed_sign_ins + 1 >= $2 THEN lockouts + 1 ELSE lockouts END,
        locked_until = CASE WHEN failed_sign_ins + 1 >= $2
          THEN now() + make_interval(mins => ($3::int[])[LEAST(lockouts + 1, cardinality($3::int[]))])
          ELSE locked_until END,
        updated_at = now()
      WHERE id = $1
      RETURNING locked_until, locked_until > now() AS locks`,
    [userId, FAILURES_BEFORE_LOCKOUT, LOCKOUT_MINUTES],
  );
  return rows[0]?.locks ? rows[0].locked_until : null;
}

/** A full sign-in clears the count and the lockout history. */
export async function clearFailedAttempts(manager: EntityManager, userId: string): Promise<void> {
  await manager.query(
    `UPDATE console_users SET failed_sign_ins = 0, lockouts = 0, locked_until = NULL,
            updated_at = now()
      WHERE id = $1`,
    [userId],
  );
}

export function isLocked(lockedUntil: Date | null, now = new Date()): lockedUntil is Date {
  return lockedUntil !== null && lockedUntil.getTime() > now.getTime();
}

/** 429 with Retry-After: the same answer whichever step (password or code) met the lock. */
export function lockedOut(lockedUntil: Date): ApiException {
  const seconds = Math.max(Math.ceil((lockedUntil.getTime() - Date.now()) / 1000), 1);
  return new ApiException(
    ErrorCode.RateLimited,
    `Too many failed sign-in attempts. This account is locked; try again in ${seconds} s.`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}
