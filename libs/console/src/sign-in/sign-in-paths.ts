/**
 * The console's routes that anyone may call before holding a full session: the password step,
 * the second factor, TOTP enrolment, and invitation lookup and acceptance. Each may cost an
 * argon2 check and an audit row, so the API limits them per client address
 * (RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE, docs/console.md), on top of the per-address lockout.
 */
export const CONSOLE_SIGN_IN_PATHS = [
  '/console/api/sign-in',
  '/console/api/two-factor',
  '/console/api/invitations',
];
