import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refund review fixes (docs/treasury.md, "Refunds"):
 *
 * - `unmatched_transfers.reason` may be `session_refunded`: a transfer to a session that has a
 *   refund not Failed or Canceled is not credited to it (the refund was decided on what it had
 *   received), it is kept apart for the merchant to refund too.
 * - `sweeps_delegate_idx`: a payout's or refund's destination is refused when it is a sweep
 *   delegate the service has called, looked up case-insensitively.
 */
export class RefundReview1766200000000 implements MigrationInterface {
  name = 'RefundReview1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE unmatched_transfers DROP CONSTRAINT unmatched_transfers_reason_check`,
    );
    await queryRunner.query(`
      ALTER TABLE unmatched_transfers ADD CONSTRAINT unmatched_transfers_reason_check
        CHECK (reason IN ('wrong_network', 'wrong_token', 'session_already_paid',
                          'session_refunded', 'unknown_address'))`);
    await queryRunner.query(
      `CREATE INDEX sweeps_delegate_idx ON sweeps (lower(delegate)) WHERE delegate IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX sweeps_delegate_idx`);
    await queryRunner.query(
      `ALTER TABLE unmatched_transfers DROP CONSTRAINT unmatched_transfers_reason_check`,
    );
    await queryRunner.query(`
      ALTER TABLE unmatched_transfers ADD CONSTRAINT unmatched_transfers_reason_check
        CHECK (reason IN ('wrong_network', 'wrong_token', 'session_already_paid',
                          'unknown_address'))`);
  }
}
