import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sweeps, the operator's exit and the per-address backoff (docs/treasury.md):
 *
 * - `sweep_attempts.step = 'cancel'`: a zero-value send from the sweeper to itself with the nonce
 *   of a stuck sweep (`treasury:cancel-nonce`), journaled before it is broadcast. Mined and
 *   confirmed, it ends the sweep Failed with its fee booked; a mined attempt of the sweep's own
 *   ends it as usual. Whichever transaction the chain shows used the nonce decides.
 * - `sweep_addresses.unswept_in_row` / `unswept_at`: sweeps in a row that ended without sweeping
 *   the address, and when the last one ended. The planner leaves the address alone for
 *   retryBackoffSeconds x 2^(unswept_in_row - 1) after it (capped); a swept address starts again
 *   from 0.
 * - `sweeps.chain_forgotten_at`: set by `chains:forget` on every sweep of the network, whose chain
 *   no longer exists (a devnet restarted, a testnet reset). The new chain counts the sweeper's
 *   nonces from 0 again, so a nonce belongs to one sweep for good only among sweeps of a chain not
 *   forgotten: the unique constraint becomes a partial unique index.
 */
export class SweepCancelAndBackoff1766330000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE sweep_attempts DROP CONSTRAINT IF EXISTS sweep_attempts_step_check`,
    );
    await queryRunner.query(`
      ALTER TABLE sweep_attempts ADD CONSTRAINT sweep_attempts_step_check
        CHECK (step IN ('batch', 'activate', 'delegate', 'transfer', 'undelegate', 'cancel'))`);
    await queryRunner.query(`
      ALTER TABLE sweep_addresses
        ADD COLUMN unswept_in_row integer NOT NULL DEFAULT 0 CHECK (unswept_in_row >= 0),
        ADD COLUMN unswept_at timestamptz`);
    await queryRunner.query(`ALTER TABLE sweeps ADD COLUMN chain_forgotten_at timestamptz`);
    await queryRunner.query(
      `ALTER TABLE sweeps DROP CONSTRAINT sweeps_network_sweeper_address_nonce_key`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX sweeps_sweeper_nonce_idx ON sweeps (network, sweeper_address, nonce)
         WHERE chain_forgotten_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The previous release would read a live sweep's mined cancel as a batch of its own and
    // decode it as one: refuse while a cancel is in flight.
    const [{ count }]: Array<{ count: number }> = await queryRunner.query(
      `SELECT count(*)::int AS count FROM sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id
        WHERE a.step = 'cancel' AND s.status = 'Processing'`,
    );
    if (count > 0) {
      throw new Error(
        `${count} cancel attempt(s) of sweeps still Processing: let the sweep passes finish ` +
          'them (npm run cli -- treasury:sweep) before reverting.',
      );
    }
    // The previous release's constraint: a sweeper nonce belongs to one sweep for good. Sweeps
    // of a forgotten chain may share a nonce with the new chain's: refuse rather than drop or
    // rewrite any of them (the operator decides which rows of a gone devnet to delete).
    const [{ shared }]: Array<{ shared: number }> = await queryRunner.query(
      `SELECT count(*)::int AS shared FROM (
         SELECT 1 FROM sweeps WHERE nonce IS NOT NULL
          GROUP BY network, sweeper_address, nonce HAVING count(*) > 1) AS duplicates`,
    );
    if (shared > 0) {
      throw new Error(
        `${shared} sweeper nonce(s) are each held by sweeps of a forgotten chain and of a later ` +
          'one (chains:forget): the previous release allows one sweep per nonce. Delete the ' +
          "forgotten chain's sweeps (sweeps.chain_forgotten_at set) before reverting.",
      );
    }
    await queryRunner.query(`DROP INDEX sweeps_sweeper_nonce_idx`);
    await queryRunner.query(
      `ALTER TABLE sweeps ADD CONSTRAINT sweeps_network_sweeper_address_nonce_key
         UNIQUE (network, sweeper_address, nonce)`,
    );
    await queryRunner.query(`ALTER TABLE sweeps DROP COLUMN chain_forgotten_at`);
    await queryRunner.query(
      `ALTER TABLE sweep_addresses DROP COLUMN unswept_at, DROP COLUMN unswept_in_row`,
    );
    await queryRunner.query(`DELETE FROM sweep_attempts WHERE step = 'cancel'`);
    await queryRunner.query(`ALTER TABLE sweep_attempts DROP CONSTRAINT sweep_attempts_step_check`);
    await queryRunner.query(`
      ALTER TABLE sweep_attempts ADD CONSTRAINT sweep_attempts_step_check
        CHECK (step IN ('batch', 'activate', 'delegate', 'transfer', 'undelegate'))`);
  }
}
