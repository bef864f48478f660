import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator area (docs/operators.md): operators' roles, and the grants of "view as merchant".
 *
 * An operator is `admin` (decides payouts, revokes keys, acts on queues) or `support` (reads
 * everything, changes nothing). Operators invited before roles existed become `support`: the
 * least reach, raised deliberately. The invitation carries the role until it is accepted.
 *
 * A view grant lets one operator session read one merchant's data for a few minutes. The grant
 * names the session (its id hash), so ending or revoking that session ends the view with it,
 * and a second browser of the same operator never inherits it.
 */
export class OperatorRoles1766440000000 implements MigrationInterface {
  name = 'OperatorRoles1766440000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE console_users
        ADD COLUMN operator_role text CHECK (operator_role IN ('admin', 'support'))`);
    await queryRunner.query(
      `UPDATE console_users SET operator_role = 'support' WHERE realm = 'operator'`,
    );
    // Null for merchant accounts: a merchant's member never holds an operator's role.
    await queryRunner.query(`
      ALTER TABLE console_users ADD CONSTRAINT console_users_operator_role_realm
        CHECK (realm = 'operator' OR operator_role IS NULL)`);
    await queryRunner.query(`
      ALTER TABLE console_invitations
        ADD COLUMN operator_role text CHECK (operator_role IN ('admin', 'support'))`);
    await queryRunner.query(`
      CREATE TABLE operator_view_grants (
        id text PRIMARY KEY,
        operator_user_id text NOT NULL REFERENCES console_users (id),
        session_id_hash bytea NOT NULL REFERENCES console_sessions (id_hash) ON DELETE CASCADE,
        merchant_id text NOT NULL REFERENCES merchants (id),
        reason text NOT NULL CHECK (length(reason) BETWEEN 10 AND 500),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
        ended_at timestamptz
      )`);
    // At most one live view per session: starting another ends the first in the same statement.
    await queryRunner.query(`
      CREATE INDEX operator_view_grants_session_idx
        ON operator_view_grants (session_id_hash) WHERE ended_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE operator_view_grants`);
    await queryRunner.query(`ALTER TABLE console_invitations DROP COLUMN operator_role`);
    await queryRunner.query(
      `ALTER TABLE console_users DROP CONSTRAINT console_users_operator_role_realm`,
    );
    await queryRunner.query(`ALTER TABLE console_users DROP COLUMN operator_role`);
  }
}
