import { MigrationInterface, QueryRunner } from 'typeorm';

/** Sub-merchants of PSP merchants, and the sub-merchant a checkout session belongs to. */
export class SubMerchants1763900000000 implements MigrationInterface {
  name = 'SubMerchants1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sub_merchants (
        id           text PRIMARY KEY,
        merchant_id  text NOT NULL REFERENCES merchants (id),
        code         text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{3,64}$'),
        name         text NOT NULL,
        status       text NOT NULL CHECK (status IN ('active', 'disabled')),
        email        text,
        website      text,
        logo_url     text,
        metadata     jsonb NOT NULL DEFAULT '{}'::jsonb,
        livemode     boolean NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now(),
        UNIQUE (merchant_id, code)
      )`);
    await queryRunner.query(
      `CREATE INDEX sub_merchants_merchant_created_idx ON sub_merchants (merchant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX sub_merchants_merchant_status_idx ON sub_merchants (merchant_id, status, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `ALTER TABLE checkout_sessions ADD COLUMN sub_merchant_id text REFERENCES sub_merchants (id)`,
    );
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_sub_merchant_created_idx
         ON checkout_sessions (sub_merchant_id, created_at DESC, id DESC) WHERE sub_merchant_id IS NOT NULL`,
    );
    // "Only the PSP's own sessions" is the default list; keep it an index range scan.
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_merchant_own_created_idx
         ON checkout_sessions (merchant_id, created_at DESC, id DESC) WHERE sub_merchant_id IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX checkout_sessions_merchant_own_created_idx`);
    await queryRunner.query(`DROP INDEX checkout_sessions_sub_merchant_created_idx`);
    await queryRunner.query(`ALTER TABLE checkout_sessions DROP COLUMN sub_merchant_id`);
    await queryRunner.query(`DROP TABLE sub_merchants`);
  }
}
