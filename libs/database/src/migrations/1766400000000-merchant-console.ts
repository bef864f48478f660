import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The merchant console and the operator area (docs/console.md): people who sign in, their
 * memberships and roles, sessions, invitations, recovery codes, an append-only audit log, and
 * what keys gain for the API keys page (name, scopes, expiry, last use).
 *
 * Console users of a merchant and operators live in one table, told apart by `realm`: the same
 * sign-in, two-factor and lockout code serves both, while an e-mail address is unique per realm,
 * so an operator's account is never the account a merchant invited.
 */
export class MerchantConsole1766400000000 implements MigrationInterface {
  name = 'MerchantConsole1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE console_users (
        id text PRIMARY KEY,
        realm text NOT NULL CHECK (realm IN ('merchant', 'operator')),
        email text NOT NULL CHECK (email = lower(email)),
        password_hash text,
        totp_secret_encrypted text,
        totp_enabled_at timestamptz,
        -- The last TOTP time step accepted: a code is never accepted twice.
        totp_last_step bigint,
        failed_sign_ins integer NOT NULL DEFAULT 0,
        lockouts integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (realm, email)
      )`);
    await queryRunner.query(`
      CREATE TABLE console_memberships (
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        merchant_id text NOT NULL REFERENCES merchants (id),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'support', 'viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, merchant_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX console_memberships_merchant_idx ON console_memberships (merchant_id)`,
    );
    await queryRunner.query(`
      CREATE TABLE console_recovery_codes (
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        code_hash bytea NOT NULL,
        used_at timestamptz,
        PRIMARY KEY (user_id, code_hash)
      )`);
    await queryRunner.query(`
      CREATE TABLE console_sessions (
        id_hash bytea PRIMARY KEY,
        user_id text NOT NULL REFERENCES console_users (id) ON DELETE CASCADE,
        -- The merchant the session acts for (the context switcher changes it).
        merchant_id text REFERENCES merchants (id),
        csrf_token text NOT NULL,
        two_factor_verified_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        ip text,
        user_agent text
      )`);
    await queryRunner.query(
      `CREATE INDEX console_sessions_user_idx ON console_sessions (user_id) WHERE revoked_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE console_invitations (
        id text PRIMARY KEY,
        token_hash bytea NOT NULL UNIQUE,
        realm text NOT NULL CHECK (realm IN ('merchant', 'operator')),
        merchant_id text REFERENCES merchants (id),
        email text NOT NULL CHECK (email = lower(email)),
        role text CHECK (role IN ('owner', 'admin', 'developer', 'support', 'viewer')),
        invited_by_user_id text REFERENCES console_users (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        revoked_at timestamptz,
        CHECK ((realm = 'merchant') = (merchant_id IS NOT NULL AND role IS NOT NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE console_audit_log (
        id text PRIMARY KEY,
        -- Null for what concerns no merchant (an operator's own sign-in).
        merchant_id text REFERENCES merchants (id),
        actor_type text NOT NULL CHECK (actor_type IN ('console_user', 'operator', 'api_key', 'cli', 'anonymous')),
        actor_id text,
        action text NOT NULL,
        target_type text,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip text,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(
      `CREATE INDEX console_audit_log_merchant_idx ON console_audit_log (merchant_id, created_at DESC, id DESC)`,
    );
    // Append-only: neither the service nor a careless script edits or removes what happened.
    await queryRunner.query(`
      CREATE FUNCTION console_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'console_audit_log is append-only (% refused)', TG_OP;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER console_audit_log_append_only
        BEFORE UPDATE OR DELETE ON console_audit_log
        FOR EACH ROW EXECUTE FUNCTION console_audit_log_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER console_audit_log_no_truncate
        BEFORE TRUNCATE ON console_audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION console_audit_log_append_only()`);
    await queryRunner.query(
      `ALTER TABLE merchants ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN name text,
        -- Null: a secret key with every permission; otherwise a restricted key's scopes.
        ADD COLUMN scopes text[],
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN last_used_at timestamptz,
        ADD COLUMN created_by_user_id text REFERENCES console_users (id),
        ADD COLUMN rolled_from_key_id text REFERENCES api_keys (id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        DROP COLUMN rolled_from_key_id, DROP COLUMN created_by_user_id, DROP COLUMN last_used_at,
        DROP COLUMN expires_at, DROP COLUMN scopes, DROP COLUMN name`);
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN require_two_factor`);
    await queryRunner.query(`DROP TABLE console_audit_log`);
    await queryRunner.query(`DROP FUNCTION console_audit_log_append_only()`);
    await queryRunner.query(`DROP TABLE console_invitations`);
    await queryRunner.query(`DROP TABLE console_sessions`);
    await queryRunner.query(`DROP TABLE console_recovery_codes`);
    await queryRunner.query(`DROP TABLE console_memberships`);
    await queryRunner.query(`DROP TABLE console_users`);
  }
}
