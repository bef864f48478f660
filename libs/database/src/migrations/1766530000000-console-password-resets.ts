import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Password reset links (docs/console.md): the service sends no e-mail, so an owner or admin of
 * the team (or an operator, from the CLI) issues one and hands it over. The table keeps each
 * token's SHA-256, never the token; a link is used once and lives an hour.
 */
export class ConsolePasswordResets1766530000000 implements MigrationInterface {
  name = 'ConsolePasswordResets1766530000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_password_resets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash bytea NOT NULL UNIQUE,
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        -- Null when issued from the CLI.
        issued_by_user_id text REFERENCES console_users (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        -- A newer link for the same user replaces this one.
        revoked_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX console_password_resets_user_idx ON console_password_resets (user_id)
        WHERE used_at IS NULL AND revoked_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE console_password_resets`);
  }
}
