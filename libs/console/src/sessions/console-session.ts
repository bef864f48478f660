import { ConsoleRole } from '@app/auth';
import { ConsoleRealm } from '../users/console-user';

/** Absolute lifetime of a session, whatever its activity (docs/console.md). */
export const SESSION_ABSOLUTE_HOURS = 12;
/** last_seen_at is written at most this often: one UPDATE a minute, not one per request. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

/**
 * Where a session stands. A new session waits for the second factor: `enrolment_pending` when
 * the user has no TOTP yet (invitation just accepted), `two_factor_pending` otherwise; only a
 * `signed_in` session reaches anything else.
 */
export type ConsoleSessionState = 'enrolment_pending' | 'two_factor_pending' | 'signed_in';

/** What an operator may do in the operator area (docs/operators.md). */
export type OperatorRole = 'admin' | 'support';

/**
 * An operator session's live "view as merchant" grant: while it lasts, the session reads that
 * merchant's data as a viewer and writes nothing (docs/operators.md, View as merchant).
 */
export interface ViewAsGrant {
  grantId: string;
  merchantId: string;
  reason: string;
  expiresAt: Date;
}

/** A live session as the guards see it: the user, the merchant it acts for and the role there. */
export interface ConsoleSession {
  /** SHA-256 of the cookie's id, hex: the id the security page shows and revokes by. */
  id: string;
  idHash: Buffer;
  userId: string;
  email: string;
  realm: ConsoleRealm;
  state: ConsoleSessionState;
  csrfToken: string;
  merchantId: string | null;
  /** The user's role at the session's merchant; null when no longer a member (or none). */
  role: ConsoleRole | null;
  createdAt: Date;
  lastSeenAt: Date;
  /** An operator's role; null for a merchant's member (and read as support if ever missing). */
  operatorRole: OperatorRole | null;
  /** Set only for an operator viewing as a merchant: merchantId and role then describe the view. */
  viewAs: ViewAsGrant | null;
}
