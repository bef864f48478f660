import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the worker's retention job (docs/operations.md, "Data retention") reads its old rows by:
 * events oldest first (created_at, id: the keyset its passes resume from), webhook attempts by
 * attempted_at; and where an events pass stopped, so the next one resumes there instead of
 * reading again the events it must keep (each object's latest).
 *
 * The indexes are built CONCURRENTLY, outside a transaction: both tables may hold millions of
 * rows, and a plain CREATE INDEX would block every event written meanwhile. An index left invalid
 * by an interrupted run is dropped and built again on the next one.
 */
export class DataRetention1795836614861 implements MigrationInterface {
  name = 'DataRetention1795836614861';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE IF NOT EXISTS retention_cursors (
        name        text PRIMARY KEY,
        created_at  timestamptz NOT NULL,
        id          text NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS events_created_idx`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY events_created_idx ON events (created_at, id)`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_attempts_attempted_idx`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY webhook_attempts_attempted_idx ON webhook_attempts (attempted_at)`,
    );
  }

  // Plain DROP INDEX: TypeORM's migration:revert runs down() in a transaction whatever
  // `transaction` says, and a drop holds its lock only for a moment.
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS webhook_attempts_attempted_idx`);
    await queryRunner.query(`DROP INDEX IF EXISTS events_created_idx`);
    await queryRunner.query(`DROP TABLE IF EXISTS retention_cursors`);
  }
}
