import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the chain head the watcher reports last changed. A node stuck at one block answers every
 * call without failing: the watcher's ticks succeed, see no new block and report success, and the
 * network would read `operational` while nothing is detected. With this column the health rules
 * can tell a chain that stopped (for the chains of known pace, which never do) from a quiet one.
 */
export class WatcherHeadMovedAt1765200000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE watcher_status ADD COLUMN head_moved_at timestamptz`);
    // The last success saw the head it stored: count it as moved then. No CHECK ties it to
    // last_success_at: a worker of the previous release, still running during a deploy, writes
    // successes without it, and its status must not fail (the health rule skips a null).
    await queryRunner.query(`UPDATE watcher_status SET head_moved_at = last_success_at`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE watcher_status DROP COLUMN head_moved_at`);
  }
}
