import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who made a fee final by hand and why (treasury:settle-fee, docs/treasury.md "Fees become
 * final", review r9b M1): the ledger keeps no note on an entry, and an operator's correction of
 * the books must say who decided it. Null for a fee the pass made final.
 */
export class NetworkFeeReceiptsSettledBy1795839900000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE network_fee_receipts
         ADD COLUMN settled_by text,
         ADD COLUMN settled_reason text`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE network_fee_receipts DROP COLUMN settled_by, DROP COLUMN settled_reason`,
    );
  }
}
