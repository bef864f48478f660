import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batch payouts (issue 26): a batch is a list of ordinary payouts created together under one
 * hold. Its status, counts and totals are read from its payouts (never stored twice);
 * payouts.batch_id is what GET /v1/payouts?batch_id= and the batch's totals read.
 */
export class PayoutBatches1766560000000 implements MigrationInterface {
  name = 'PayoutBatches1766560000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payout_batches (
        id               text PRIMARY KEY,
        merchant_id      text NOT NULL REFERENCES merchants (id),
        sub_merchant_id  text REFERENCES sub_merchants (id),
        livemode         boolean NOT NULL,
        item_count       integer NOT NULL CHECK (item_count BETWEEN 1 AND 1000),
        created_at       timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX payout_batches_merchant_created_idx
         ON payout_batches (merchant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX payout_batches_sub_merchant_created_idx
         ON payout_batches (sub_merchant_id, created_at DESC, id DESC)
         WHERE sub_merchant_id IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE payouts ADD COLUMN batch_id text REFERENCES payout_batches (id)`,
    );
    await queryRunner.query(
      `CREATE INDEX payouts_batch_created_idx ON payouts (batch_id, created_at DESC, id DESC)
         WHERE batch_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payouts DROP COLUMN batch_id`);
    await queryRunner.query(`DROP TABLE payout_batches`);
  }
}
