import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * chains:forget keeps an unmatched transfer refunded in full (its refund Completed) as it is,
 * booked with its refund, both of the gone chain. chain_forgotten_at marks it so: the deposit
 * watcher never reads it as open on the new chain, where another block at its height would look
 * like a reorg of it and book the refund as a loss (docs/treasury.md, chains:forget).
 */
export class UnmatchedChainForgotten1766580000000 implements MigrationInterface {
  name = 'UnmatchedChainForgotten1766580000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE unmatched_transfers ADD COLUMN chain_forgotten_at timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE unmatched_transfers DROP COLUMN chain_forgotten_at`);
  }
}
