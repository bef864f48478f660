import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every claim reserves the hot wallet's native coin for the attempts at or above its mined count
 * (PayoutCoverageRepository.committedFees): a range of one wallet's nonces, read under the
 * wallet's lock, that must not scan every attempt ever made.
 */
export class PayoutAttemptsWalletNonce1765600000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX payout_attempts_wallet_nonce_idx
         ON payout_attempts (network, wallet_address, nonce)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payout_attempts_wallet_nonce_idx`);
  }
}
