import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { ClientInfo } from '../sessions/console-sessions.repository';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';

/** Wrong fresh codes a user may enter within the window before every further one is refused. */
export const FRESH_CODE_FAILURES_ALLOWED = 5;
export const FRESH_CODE_WINDOW_MINUTES = 15;
/** The audit action of a wrong fresh code: the log is the counter, and cannot be erased. */
export const FRESH_CODE_FAILED = 'two_factor.fresh_code_failed';

export interface FreshCodeAttempt {
  userId: string;
  /** The merchant the change is for: where the failure is audited (null: an operator's own). */
  merchantId: string | null;
  code: string | undefined;
  /** What the code unlocks, for the messages: "create a live API key". */
  purpose: string;
  client: ClientInfo;
}

/**
 * The fresh TOTP code production asks for before a change that reaches money or the team (live
 * keys; granting a role that manages keys or the team). The code is checked in its own
 * transaction, which commits an audit entry when it is wrong: the change's transaction would roll
 * a failure back, leaving guesses uncounted. Failures are counted from the append-only audit log;
 * the user's row is locked first, so parallel guesses are counted one after the other.
 *
 * A right code is spent (its time step recorded) even if the change then fails: one more code.
 * A code already used (a double submit, a retry of the same form) is refused as used, neither
 * audited nor counted: it proves the secret is known, and counting it would lock a user out for
 * double-clicking.
 */
export async function requireFreshCode(
  dataSource: DataSource,
  verifier: TwoFactorVerifier,
  attempt: FreshCodeAttempt,
): Promise<void> {
  const { code } = attempt;
  if (!code) {
    throw new ApiException(
      ErrorCode.TwoFactorRequired,
      `Enter a code from your authenticator app to ${attempt.purpose}.`,
      'two_factor_code',
    );
  }
  const verdict = await dataSource.transaction(async (manager) => {
    await manager.query(`SELECT 1 FROM console_users WHERE id = $1 FOR UPDATE`, [attempt.userId]);
    // The oldest of the last FRESH_CODE_FAILURES_ALLOWED failures, if all are in the window:
    // once it leaves the window, the user may try again. The action is spelled in the SQL so
    // the planner uses the partial index on it (migration 1766460000000).
    const rows: Array<{ retry_after: string }> = await manager.query(
      `SELECT ceil(extract(epoch FROM created_at + make_interval(mins => $2) - now()))
                AS retry_after
         FROM console_audit_log
        WHERE actor_id = $1 AND action = '${FRESH_CODE_FAILED}'
          AND created_at > now() - make_interval(mins => $2)
        ORDER BY created_at DESC
        OFFSET $3 LIMIT 1`,
      [attempt.userId, FRESH_CODE_WINDOW_MINUTES, FRESH_CODE_FAILURES_ALLOWED - 1],
    );
    if (rows[0]) return { limitedFor: Math.max(Number(rows[0].retry_after), 1) };
    const checked = await verifier.checkFreshCode(manager, attempt.userId, code);
    if (checked !== 'wrong') return { checked };
    await recordAudit(manager, {
      merchantId: attempt.merchantId,
      actorType: 'console_user',
      actorId: attempt.userId,
      action: FRESH_CODE_FAILED,
      targetType: 'console_user',
      targetId: attempt.userId,
      details: { purpose: attempt.purpose },
      ip: attempt.client.ip,
      userAgent: attempt.client.userAgent,
    });
    return { checked };
  });
  if ('limitedFor' in verdict) {
    throw new ApiException(
      ErrorCode.RateLimited,
      `Too many wrong two-factor codes. Try again in ${verdict.limitedFor} s.`,
      'two_factor_code',
      { 'Retry-After': String(verdict.limitedFor) },
    );
  }
  if (verdict.checked === 'reused') {
    throw new ApiException(
      ErrorCode.ParameterInvalid,
      'This two-factor code was already used. Wait for the next code of your authenticator app.',
      'two_factor_code',
    );
  }
  if (verdict.checked === 'wrong') {
    throw new ApiException(
      ErrorCode.ParameterInvalid,
      'The two-factor code is wrong or expired. Enter the current code.',
      'two_factor_code',
    );
  }
}
