import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C traceparent of the request that wrote an event (docs/operations.md, "Traces"): the
 * worker's webhook delivery continues that trace, and sends it as the `traceparent` header.
 * Nullable, no default: adding it rewrites nothing, and it stays null while tracing is off.
 */
export class TraceContext1795837885066 implements MigrationInterface {
  name = 'TraceContext1795837885066';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events ADD COLUMN IF NOT EXISTS trace_context text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN IF EXISTS trace_context`);
  }
}
