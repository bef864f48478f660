import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * TRON fees are recorded already final (docs/treasury.md, "Fees become final", review r9b M4):
 * they are read from solidified blocks and the pass that makes fees final is EVM only, so rows
 * written before stayed not final for ever, in the not-final index every pass reads.
 */
export class NetworkFeeReceiptsTronFinal1795839600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE network_fee_receipts SET final_at = booked_at
        WHERE network = 'TRON' AND final_at IS NULL`,
    );
  }

  async down(): Promise<void> {
    // Nothing to undo: a TRON fee is final once booked either way.
  }
}
