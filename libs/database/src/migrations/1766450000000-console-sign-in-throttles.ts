import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in lockouts keyed by the address typed, not by the account (issue 25, review findings 2, 4
 * and 5). A row exists for an unknown address as for a known one, so an unknown address locks and
 * answers exactly like a known one, and the lock is checked and charged in one locked statement
 * before any password or code is verified.
 *
 * The address is stored only as an HMAC (a key derived from WEBHOOK_SECRETS_KEY): the table holds
 * whatever people typed, which need not be an address of anyone here. Rows untouched for 24 hours
 * are forgotten (each attempt prunes a few), so the table holds one day of attempts.
 *
 * console_users' own counters (failed_sign_ins, lockouts, locked_until) are dropped: nothing reads
 * them any more, and two places for one lock would disagree.
 */
export class ConsoleSignInThrottles1766450000000 implements MigrationInterface {
  name = 'ConsoleSignInThrottles1766450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_sign_in_throttles (
        realm text NOT NULL CHECK (realm IN ('merchant', 'operator')),
        -- HMAC-SHA-256 of the normalised (trimmed, lowercased) address.
        email_hmac bytea NOT NULL,
        -- Attempts charged since the last lock or full sign-in, including those still running.
        failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
        -- Locks so far; picks the next lock's length. Forgotten after 24 h without an attempt.
        lockouts integer NOT NULL DEFAULT 0 CHECK (lockouts >= 0),
        locked_until timestamptz,
        -- Attempts refused while locked: counted here rather than audited one by one.
        refused_while_locked bigint NOT NULL DEFAULT 0,
        last_attempt_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (realm, email_hmac)
      )`);
    await queryRunner.query(
      `CREATE INDEX console_sign_in_throttles_last_attempt ON console_sign_in_throttles (last_attempt_at)`,
    );
    await queryRunner.query(`
      ALTER TABLE console_users
        DROP COLUMN failed_sign_ins, DROP COLUMN lockouts, DROP COLUMN locked_until`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE console_users
        ADD COLUMN failed_sign_ins integer NOT NULL DEFAULT 0,
        ADD COLUMN lockouts integer NOT NULL DEFAULT 0,
        ADD COLUMN locked_until timestamptz`);
    await queryRunner.query(`DROP TABLE console_sign_in_throttles`);
  }
}
