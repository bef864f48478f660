import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wrong fresh two-factor codes (the code production asks for before a live key or a grant of a
 * role that manages keys or the team) are counted from the append-only audit log, so the count
 * cannot be erased (issue 25, review finding 3): after 5 in 15 minutes a user is refused. The
 * count reads a user's recent failures: a partial index keeps that a short range scan however
 * large the log grows, and costs nothing on the other actions' inserts.
 */
export class FreshCodeFailuresIndex1766460000000 implements MigrationInterface {
  name = 'FreshCodeFailuresIndex1766460000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX console_audit_log_fresh_code_failures_idx
         ON console_audit_log (actor_id, created_at DESC)
         WHERE action = 'two_factor.fresh_code_failed'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX console_audit_log_fresh_code_failures_idx`);
  }
}
