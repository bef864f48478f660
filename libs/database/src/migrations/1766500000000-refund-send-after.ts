import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * refunds.send_after: when an address the customer gave on the hosted page may be sent (issue 24,
 * review finding 4). The refund's payout is created with `next_attempt_at` at that time, which
 * the payout worker already waits for; this column is what the merchant and the customer see.
 * Null when nothing waits (the merchant gave the address, or no delay is configured).
 */
export class RefundSendAfter1766500000000 implements MigrationInterface {
  name = 'RefundSendAfter1766500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE refunds ADD COLUMN send_after timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE refunds DROP COLUMN send_after`);
  }
}
