import { Inject, Injectable } from '@nestjs/common';
import { createHmac, hkdfSync } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { updateReturning } from '../db/sql';
import { ConsoleRealm, normalizeEmail } from '../users/console-user';
import { FAILURES_BEFORE_LOCKOUT, LOCKOUT_HISTORY_HOURS, LOCKOUT_MINUTES } from './lockout';

/** The outcome of asking to check one password or code for an address. */
export type SignInAttempt =
  /** Locked: refuse without checking anything. */
  | { kind: 'refused'; retryAfterSeconds: number }
  /**
   * Charged: check the password or code. `lockRetryAfterSeconds` is set when this attempt was
   * the last one allowed (the address is now locked): a failure answers 429 instead of 401.
   */
  | {
      kind: 'charged';
      key: ThrottleKey;
      /** The lock this attempt set, as PostgreSQL prints it (microseconds, which Date drops). */
      lockedUntil: string | null;
      lockRetryAfterSeconds: number | null;
    };

export interface ThrottleKey {
  realm: ConsoleRealm;
  emailHmac: Buffer;
}

const STALE = `now() - make_interval(hours => ${LOCKOUT_HISTORY_HOURS})`;
/** Stale rows each attempt deletes: more than an attempt adds, so the table holds one day. */
const PRUNE_PER_ATTEMPT = 10;

/**
 * Sign-in lockouts per (realm, address typed), known address or not (docs/console.md).
 *
 * The lock is checked and the attempt charged in one statement under the row's lock, BEFORE the
 * password or code is checked; the check then runs with no lock held (argon2 takes tens of
 * milliseconds, and a row lock held through it would queue a burst on database connections).
 * So of any number of parallel attempts at most 5 are ever checked per lock, and one that meets a
 * lock set by others is refused whatever it carries. Charged attempts are failures until proven
 * otherwise: a right password gives its charge back, a full sign-in forgets the address.
 */
@Injectable()
export class SignInThrottle {
  private readonly key: Buffer;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.key = Buffer.from(
      hkdfSync(
        'sha256',
        config.webhooks.secretsKey,
        Buffer.alloc(0),
        'console sign-in throttle v1',
        32,
      ),
    );
  }

  keyOf(realm: ConsoleRealm, email: string): ThrottleKey {
    return {
      realm,
      emailHmac: createHmac('sha256', this.key).update(normalizeEmail(email)).digest(),
    };
  }

  /** Charges one attempt for the address, or refuses it when the address is locked. */
  async charge(realm: ConsoleRealm, email: string): Promise<SignInAttempt> {
    const key = this.keyOf(realm, email);
    const attempt = await this.dataSource.transaction(async (manager) => {
      // ON CONFLICT locks the row whether or not its WHERE lets the update through, so what
      // follows in this transaction sees and changes the row no other attempt can touch.
      const charged: Array<{ failures: number }> = await manager.query(
        `INSERT INTO console_sign_in_throttles AS t (realm, email_hmac, failures, last_attempt_at)
         VALUES ($1, $2, 1, now())
         ON CONFLICT (realm, email_hmac) DO UPDATE SET
           failures = CASE WHEN t.last_attempt_at < ${STALE} THEN 0 ELSE t.failures END + 1,
           lockouts = CASE WHEN t.last_attempt_at < ${STALE} THEN 0 ELSE t.lockouts END,
           last_attempt_at = now()
         WHERE t.locked_until IS NULL OR t.locked_until <= now()
         RETURNING t.failures`,
        [key.realm, key.emailHmac],
      );
      if (charged.length === 0) {
        const [locked] = await updateReturning<{ retry_after: string }>(
          manager,
          `UPDATE console_sign_in_throttles
              SET refused_while_locked = refused_while_locked + 1
            WHERE realm = $1 AND email_hmac = $2
            RETURNING extract(epoch FROM locked_until - now()) AS retry_after`,
          [key.realm, key.emailHmac],
        );
        return { kind: 'refused', retryAfterSeconds: Number(locked.retry_after) } as const;
      }
      if (charged[0].failures < FAILURES_BEFORE_LOCKOUT) {
        return { kind: 'charged', key, lockedUntil: null, lockRetryAfterSeconds: null } as const;
      }
      const [lock] = await updateReturning<{ locked_until: string; retry_after: string }>(
        manager,
        `UPDATE console_sign_in_throttles SET
            failures = 0,
            lockouts = lockouts + 1,
            locked_until = now()
              + make_interval(mins => ($3::int[])[LEAST(lockouts + 1, cardinality($3::int[]))])
          WHERE realm = $1 AND email_hmac = $2
          RETURNING locked_until::text AS locked_until,
                    extract(epoch FROM locked_until - now()) AS retry_after`,
        [key.realm, key.emailHmac, LOCKOUT_MINUTES],
      );
      return {
        kind: 'charged',
        key,
        lockedUntil: lock.locked_until,
        lockRetryAfterSeconds: Number(lock.retry_after),
      } as const;
    });
    await this.pruneStale();
    return attempt;
  }

  /**
   * A right password gives its charge back. If its charge set the lock, the lock is lifted (the
   * attempts before it are still counted); a lock set by other attempts stays.
   */
  async refund(
    manager: EntityManager,
    attempt: SignInAttempt & { kind: 'charged' },
  ): Promise<void> {
    const { realm, emailHmac } = attempt.key;
    if (attempt.lockedUntil) {
      await manager.query(
        `UPDATE console_sign_in_throttles
            SET locked_until = NULL, lockouts = GREATEST(lockouts - 1, 0), failures = $3
          WHERE realm = $1 AND email_hmac = $2 AND locked_until = $4::timestamptz`,
        [realm, emailHmac, FAILURES_BEFORE_LOCKOUT - 1, attempt.lockedUntil],
      );
      return;
    }
    await manager.query(
      `UPDATE console_sign_in_throttles SET failures = GREATEST(failures - 1, 0)
        WHERE realm = $1 AND email_hmac = $2`,
      [realm, emailHmac],
    );
  }

  /** A full sign-in (second factor or enrolment) forgets the address's failures and locks. */
  async forget(manager: EntityManager, realm: ConsoleRealm, email: string): Promise<void> {
    const { emailHmac } = this.keyOf(realm, email);
    await manager.query(
      `DELETE FROM console_sign_in_throttles WHERE realm = $1 AND email_hmac = $2`,
      [realm, emailHmac],
    );
  }

  /** Unknown addresses leave rows too: each attempt deletes a few that are a day old. */
  private async pruneStale(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM console_sign_in_throttles
        WHERE (realm, email_hmac) IN (
                SELECT realm, email_hmac FROM console_sign_in_throttles
                 WHERE last_attempt_at < ${STALE} ORDER BY last_attempt_at LIMIT $1)
          AND last_attempt_at < ${STALE}
          AND (locked_until IS NULL OR locked_until <= now())`,
      [PRUNE_PER_ATTEMPT],
    );
  }
}
