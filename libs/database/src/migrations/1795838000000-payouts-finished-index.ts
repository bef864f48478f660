import { MigrationInterface, QueryRunner } from 'typeorm';

const NAME = 'payouts_finished_network_updated_idx';

/**
 * TRON's coverage check counts the payouts finished since its balance read (review r6, M2): a
 * payout mined and finished between the read and the claim's wallet lock took tokens (and fees)
 * the read still shows. Under the wallet's lock that must be an index range, not a scan of every
 * finished payout. `updated_at` is set by the statement that finishes a payout.
 *
 * Built CONCURRENTLY, outside a transaction (as ListIndexes): a plain CREATE INDEX would block
 * payout writes for the whole build. An index left invalid by an interrupted run is rebuilt.
 */
export class PayoutsFinishedIndex1795838000000 implements MigrationInterface {
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${NAME}`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY ${NAME} ON payouts (network, updated_at)
        WHERE status IN ('Completed', 'Failed')`,
    );
  }

  // Plain DROP INDEX: TypeORM's migration:revert runs down() in a transaction whatever
  // `transaction` says (CONCURRENTLY failed there), and a drop holds its lock only for a moment.
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ${NAME}`);
  }
}
