import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deposit watcher's memory of the chain: the hash of each recent block it scanned (to find
 * the fork point after a reorg), and a version on the cursor so a tick that read the chain without
 * holding any lock commits only if no other tick committed in between (compare-and-set).
 */
export class ChainBlocks1764600000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE chain_cursors ADD COLUMN version bigint NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(`
      CREATE TABLE chain_blocks (
        network       text NOT NULL REFERENCES chain_cursors (network) ON DELETE CASCADE,
        block_number  bigint NOT NULL CHECK (block_number >= 0),
        block_hash    text NOT NULL,
        PRIMARY KEY (network, block_number)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chain_blocks`);
    await queryRunner.query(`ALTER TABLE chain_cursors DROP COLUMN version`);
  }
}
