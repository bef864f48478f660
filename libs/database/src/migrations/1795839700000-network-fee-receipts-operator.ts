import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Since when a fee not final is left for an operator (docs/treasury.md, "Fees become final",
 * review r9b M1): the gauge `payments_treasury_fees_not_final{reason="operator"}` counts those
 * rows apart from the ones still waiting. Null while the pass may still decide the fee.
 */
export class NetworkFeeReceiptsOperator1795839700000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE network_fee_receipts ADD COLUMN operator_since timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE network_fee_receipts DROP COLUMN operator_since`);
  }
}
