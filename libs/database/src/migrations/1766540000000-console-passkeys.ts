import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passkeys (WebAuthn) as an additional second factor of console accounts (docs/console.md): each
 * credential's id, public key, sign counter and transports per user; and the ceremonies'
 * challenges, each bound to one session (the sign-in attempt) and purpose, single-use and
 * short-lived.
 */
export class ConsolePasskeys1766540000000 implements MigrationInterface {
  name = 'ConsolePasskeys1766540000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_passkeys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        -- The credential id as base64url, as WebAuthn responses carry it.
        credential_id text NOT NULL UNIQUE,
        -- COSE public key.
        public_key bytea NOT NULL,
        sign_count bigint NOT NULL DEFAULT 0 CHECK (sign_count >= 0),
        transports text[] NOT NULL DEFAULT '{}',
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX console_passkeys_user_idx ON console_passkeys (user_id)`);
    await queryRunner.query(`
      CREATE TABLE console_passkey_challenges (
        -- SHA-256 of the session's id when the challenge was issued: a challenge answers only
        -- within the session (sign-in attempt) it was issued to.
        session_id_hash bytea NOT NULL,
        purpose text NOT NULL CHECK (purpose IN ('registration', 'sign_in')),
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        challenge text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (session_id_hash, purpose)
      )`);
    await queryRunner.query(
      `CREATE INDEX console_passkey_challenges_expiry_idx ON console_passkey_challenges (expires_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE console_passkey_challenges`);
    await queryRunner.query(`DROP TABLE console_passkeys`);
  }
}
