import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sandbox payout that simulated money funds is never signed: the worker parks it (docs/sandbox.md,
 * "Simulated money stays simulated") with this column set to when it decided so, `pending_reason`
 * `awaiting_simulation` and `next_attempt_at` 'infinity' (never due), until a test helper completes
 * or fails it. Null for every other payout, and always in production.
 */
export class PayoutAwaitingSimulation1795836083082 implements MigrationInterface {
  name = 'PayoutAwaitingSimulation1795836083082';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payouts ADD COLUMN awaiting_simulation_since timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payouts DROP COLUMN awaiting_simulation_since`);
  }
}
