import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * nonce_proofs: which transaction used a hot wallet's (or a deposit address's) nonce, as first
 * proven by the counts at that block (docs/payouts.md, Processing). A proof waits for its
 * confirmations; kept only in a worker's memory, it was lost at a restart, and a node that has
 * pruned that block's state cannot make it again for an EIP-7702 authorization: the payout stayed
 * Processing with its funds held. The stored proof holds while the block at `block_number` still
 * has `block_hash`.
 *
 * payout_nonce_proof_waits: a payout whose nonce is used on chain while no proof of the consumer
 * can be made, since when, and when the worker logged the alert; a gauge counts those waiting
 * long (docs/operations.md).
 */
export class NonceProofs1795836459785 implements MigrationInterface {
  name = 'NonceProofs1795836459785';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE nonce_proofs (
        network          text NOT NULL,
        address          text NOT NULL,
        nonce            bigint NOT NULL,
        block_number     bigint NOT NULL,
        block_hash       text NOT NULL,
        tx_hash          text NOT NULL,
        by_authorization boolean NOT NULL,
        proven_at        timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, address, nonce)
      )`);
    await queryRunner.query(`
      CREATE TABLE payout_nonce_proof_waits (
        payout_id      text PRIMARY KEY REFERENCES payouts (id) ON DELETE CASCADE,
        network        text NOT NULL,
        wallet_address text NOT NULL,
        nonce          bigint NOT NULL,
        since          timestamptz NOT NULL DEFAULT now(),
        alerted_at     timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payout_nonce_proof_waits`);
    await queryRunner.query(`DROP TABLE nonce_proofs`);
  }
}
