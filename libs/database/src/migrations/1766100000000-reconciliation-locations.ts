import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation per location (docs/treasury.md, "Reconciliation"):
 *
 * - `wallet_addresses`: every address ever registered for a role (hot_wallet, sweeper, treasury)
 *   on a network. hot_wallets and treasury_wallets keep one row per (network, role) and a key
 *   rotation overwrites it; the old address may still hold what its books say, so reconciliation
 *   keeps reading it. Filled by triggers on both tables, whoever registers the wallet.
 * - `reconciliation_runs.locations`: the run's rows per location (deposits, hot_wallet, treasury,
 *   sweeper), so a unit booked to the wrong location shows even when the currency's total matches.
 */
export class ReconciliationLocations1766100000000 implements MigrationInterface {
  name = 'ReconciliationLocations1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE wallet_addresses (
        network        text NOT NULL,
        role           text NOT NULL CHECK (role IN ('hot_wallet', 'sweeper', 'treasury')),
        address        text NOT NULL,
        registered_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, role, address)
      )`);
    await queryRunner.query(`
      CREATE FUNCTION remember_wallet_address() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO wallet_addresses (network, role, address)
        -- hot_wallets has no role column: its rows are the hot wallet's.
        VALUES (NEW.network, coalesce(to_jsonb(NEW) ->> 'role', 'hot_wallet'), NEW.address)
        ON CONFLICT DO NOTHING;
        RETURN NEW;
      END $$`);
    for (const table of ['hot_wallets', 'treasury_wallets']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_remember_address AFTER INSERT OR UPDATE OF address ON ${table}
          FOR EACH ROW EXECUTE FUNCTION remember_wallet_address()`);
    }
    await queryRunner.query(`
      INSERT INTO wallet_addresses (network, role, address)
      SELECT network, 'hot_wallet', address FROM hot_wallets
      UNION SELECT network, role, address FROM treasury_wallets
      ON CONFLICT DO NOTHING`);
    await queryRunner.query(
      `ALTER TABLE reconciliation_runs ADD COLUMN locations jsonb NOT NULL DEFAULT '[]'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reconciliation_runs DROP COLUMN locations`);
    for (const table of ['hot_wallets', 'treasury_wallets']) {
      await queryRunner.query(`DROP TRIGGER ${table}_remember_address ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION remember_wallet_address()`);
    await queryRunner.query(`DROP TABLE wallet_addresses`);
  }
}
