import { ApiException, ErrorCode } from '@app/common';

/** Attempts (passwords and second factors together) an address gets before it is locked. */
export const FAILURES_BEFORE_LOCKOUT = 5;
/**
 * Each lock of an address lasts longer than the previous one, up to an hour (minutes). Capped at
 * an hour, not a day: anyone who knows an address can lock it, so a long lock is a weapon against
 * the owner more than against a guesser, who at this pace gets 5 guesses an hour either way.
 */
export const LOCKOUT_MINUTES = [1, 5, 15, 60];
/** The lock history of an address is forgotten after this long without an attempt. */
export const LOCKOUT_HISTORY_HOURS = 24;

/** 429 with Retry-After: the same answer whichever step met the lock, known address or not. */
export function lockedOut(retryAfterSeconds: number): ApiException {
  const seconds = Math.max(Math.ceil(retryAfterSeconds), 1);
  return new ApiException(
    ErrorCode.RateLimited,
    `Too many failed sign-in attempts. This account is locked; try again in ${seconds} s.`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}
