import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The addresses the service controls besides deposit addresses and hot wallets, one per network
 * and role: the sweeper (pays every sweep's gas, its own nonce lane; on TRON it also stakes and
 * lends energy) and the cold treasury (receives what passes the hot wallet's target level).
 * Registered by the worker at start from SWEEPER_KEYS_FILE and TREASURY_FILE, like hot_wallets;
 * reconciliation reads them.
 */
export class TreasuryWallets1765700000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE treasury_wallets (
        network     text NOT NULL,
        role        text NOT NULL CHECK (role IN ('sweeper', 'treasury')),
        address     text NOT NULL,
        next_nonce  bigint CHECK (next_nonce >= 0),
        updated_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, role)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE treasury_wallets`);
  }
}
