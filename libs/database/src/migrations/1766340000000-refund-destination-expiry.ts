import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds waiting for the customer's address expire (docs/refunds.md, States): the worker looks
 * for the oldest `requires_destination` refunds every minute, through this small partial index.
 */
export class RefundDestinationExpiry1766340000000 implements MigrationInterface {
  name = 'RefundDestinationExpiry1766340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX refunds_awaiting_destination_idx ON refunds (created_at, id)
        WHERE status = 'requires_destination'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX refunds_awaiting_destination_idx`);
  }
}
