import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A TRON deposit address whose sweep waits because its TRX could not be read (a node without
 * balance history once a sweep burnt its TRX, or the solidity API failing): since when, set by
 * the sweep pass that deferred it and cleared by the first read that proves its TRX. treasury:status
 * lists these addresses and a gauge counts them (docs/treasury.md).
 */
export class SweepTrxReadWaiting1766580000001 implements MigrationInterface {
  name = 'SweepTrxReadWaiting1766580000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sweep_addresses ADD COLUMN trx_read_waiting_since timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sweep_addresses DROP COLUMN trx_read_waiting_since`);
  }
}
