import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the deposit watcher last reported per network, for GET /v1/networks and the hosted page's
 * detection notice. A table of its own rather than columns on chain_cursors: the watcher locks
 * its cursor row in every tick, and status writes (outside that transaction, after it) must
 * neither wait for nor hold that lock. No foreign key to chain_cursors either: forgetting a
 * chain's cursor (a testnet reset) keeps its history of failures.
 */
export class WatcherStatus1764500000000 implements MigrationInterface {
  name = 'WatcherStatus1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // chain_head and scanned_block are null until the first successful tick; scanned_block is
    // the cursor's last_scanned_block (-1 before anything was scanned).
    await queryRunner.query(`
      CREATE TABLE watcher_status (
        network               text PRIMARY KEY,
        chain_head            bigint CHECK (chain_head >= 0),
        scanned_block         bigint CHECK (scanned_block >= -1),
        last_success_at       timestamptz,
        last_failure_at       timestamptz,
        last_error            text,
        consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
        updated_at            timestamptz NOT NULL DEFAULT now(),
        CHECK ((chain_head IS NULL) = (last_success_at IS NULL)),
        CHECK ((scanned_block IS NULL) = (last_success_at IS NULL)),
        CHECK (last_error IS NULL OR last_failure_at IS NOT NULL)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE watcher_status`);
  }
}
