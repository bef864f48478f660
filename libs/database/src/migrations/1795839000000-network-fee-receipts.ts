import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The receipt each EVM network fee was booked from (docs/treasury.md, "Fees become final"): a
 * reorg deeper than the confirmations can drop the transaction and mine it again in another
 * block at another price, and the fee booked from the first receipt must then be corrected.
 * Written with the fee's ledger entry; `final_at` is set once the receipt is checked again at
 * the network's finalityBlocks. Fees booked before this table existed are not checked again.
 */
export class NetworkFeeReceipts1795839000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE network_fee_receipts (
        network text NOT NULL,
        tx_hash text NOT NULL,
        fee_base_units numeric(78, 0) NOT NULL CHECK (fee_base_units >= 0),
        block_number bigint,
        block_hash text,
        succeeded boolean,
        booked_at timestamptz NOT NULL DEFAULT now(),
        final_at timestamptz,
        PRIMARY KEY (network, tx_hash)
      )`);
    await queryRunner.query(
      `CREATE INDEX network_fee_receipts_not_final_idx ON network_fee_receipts (network, booked_at)
        WHERE final_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE network_fee_receipts`);
  }
}
