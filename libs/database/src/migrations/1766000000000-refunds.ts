import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds of checkout sessions and unmatched transfers (docs/treasury.md, "Refunds"). A refund is
 * sent by the payout machinery: once it has a destination, one internal payout row carries it
 * (`payouts.refund_id`, unique), so the worker's exactly-once journal sends it like any payout.
 */
export class Refunds1766000000000 implements MigrationInterface {
  name = 'Refunds1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE refunds (
        id                     text PRIMARY KEY,
        merchant_id            text NOT NULL REFERENCES merchants (id),
        sub_merchant_id        text REFERENCES sub_merchants (id),
        livemode               boolean NOT NULL,
        session_id             text REFERENCES checkout_sessions (id),
        unmatched_transfer_id  text REFERENCES unmatched_transfers (id),
        status                 text NOT NULL CHECK (status IN
          ('requires_destination', 'Pending', 'Processing', 'Completed', 'Failed', 'Canceled')),
        amount                 numeric(38, 18) NOT NULL CHECK (amount > 0),
        fee                    numeric(38, 18) NOT NULL CHECK (fee >= 0),
        net_amount             numeric(38, 18) NOT NULL
          CHECK (net_amount > 0 AND net_amount = amount - fee),
        currency               text NOT NULL,
        network                text NOT NULL,
        chain_family           text NOT NULL,
        to_address             text,
        reason                 text,
        tx_hash                text,
        error_reason           text,
        completed_at           timestamptz,
        canceled_at            timestamptz,
        created_at             timestamptz NOT NULL DEFAULT now(),
        updated_at             timestamptz NOT NULL DEFAULT now(),
        -- A refund gives back one thing: a session's payment or one unmatched transfer.
        CHECK ((session_id IS NULL) <> (unmatched_transfer_id IS NULL)),
        CHECK (status IN ('requires_destination', 'Canceled') OR to_address IS NOT NULL),
        CHECK ((status = 'Completed') = (completed_at IS NOT NULL)),
        CHECK (status <> 'Completed' OR tx_hash IS NOT NULL)
      )`);
    // The list indexes of payouts (newest first per merchant, per filter), plus per session: the
    // refundable amount sums a session's refunds under its row lock.
    for (const [name, columns, where] of [
      ['refunds_merchant_created_idx', 'merchant_id, created_at DESC, id DESC', ''],
      ['refunds_merchant_status_idx', 'merchant_id, status, created_at DESC, id DESC', ''],
      [
        'refunds_merchant_own_created_idx',
        'merchant_id, created_at DESC, id DESC',
        'WHERE sub_merchant_id IS NULL',
      ],
      [
        'refunds_sub_merchant_created_idx',
        'sub_merchant_id, created_at DESC, id DESC',
        'WHERE sub_merchant_id IS NOT NULL',
      ],
      [
        'refunds_session_created_idx',
        'session_id, created_at DESC, id DESC',
        'WHERE session_id IS NOT NULL',
      ],
    ]) {
      await queryRunner.query(`CREATE INDEX ${name} ON refunds (${columns}) ${where}`);
    }
    // An unmatched transfer is refunded once: a second live refund of it cannot be stored.
    await queryRunner.query(`
      CREATE UNIQUE INDEX refunds_unmatched_transfer_once ON refunds (unmatched_transfer_id)
        WHERE unmatched_transfer_id IS NOT NULL AND status NOT IN ('Failed', 'Canceled')`);
    // One payout per refund, for good: a refund can never be sent by two payouts.
    await queryRunner.query(
      `ALTER TABLE payouts ADD COLUMN refund_id text REFERENCES refunds (id)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX payouts_refund_idx ON payouts (refund_id) WHERE refund_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payouts_refund_idx`);
    await queryRunner.query(`ALTER TABLE payouts DROP COLUMN refund_id`);
    await queryRunner.query(`DROP TABLE refunds`);
  }
}
