import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a fee not yet final is read again (docs/treasury.md, "Fees become final", review r9b H2):
 * a receipt that never becomes final (a transaction dropped for good, a receipt the node pruned,
 * a row left for an operator) waited at the front of the oldest-first batch for ever and starved
 * every newer fee of its network. Each undecided read now puts the row's next check further off
 * (`checks` of them so far) and a pass takes the rows due first. Existing rows are due now; both
 * columns have constant defaults, so nothing is rewritten.
 */
export class NetworkFeeReceiptsNextCheck1795839500000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE network_fee_receipts
         ADD COLUMN next_check_at timestamptz NOT NULL DEFAULT now(),
         ADD COLUMN checks integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(`DROP INDEX network_fee_receipts_not_final_idx`);
    await queryRunner.query(
      `CREATE INDEX network_fee_receipts_due_idx ON network_fee_receipts (network, next_check_at)
        WHERE final_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX network_fee_receipts_due_idx`);
    await queryRunner.query(
      `CREATE INDEX network_fee_receipts_not_final_idx ON network_fee_receipts (network, booked_at)
        WHERE final_at IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE network_fee_receipts DROP COLUMN next_check_at, DROP COLUMN checks`,
    );
  }
}
