import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Since when a tick's count found a waiting payout's nonce unused (review r9c, R2). The wait is
 * kept, not deleted, for the alert window: a balancer whose backends flap between "used" and
 * "unused" restarted the wait at every "used" and never alerted. Null while the wait is live.
 */
export class NonceProofWaitsUnused1795839800000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE payout_nonce_proof_waits ADD COLUMN unused_at timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payout_nonce_proof_waits DROP COLUMN unused_at`);
  }
}
