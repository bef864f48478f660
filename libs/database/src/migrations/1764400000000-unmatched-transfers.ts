import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transfers of a watched token to one of our addresses that no session may take (wrong network,
 * wrong token, a session already paid, a pool address without a session): recorded, never
 * credited, so neither the merchant's customer's money nor the operator's view of it is lost.
 */
export class UnmatchedTransfers1764400000000 implements MigrationInterface {
  name = 'UnmatchedTransfers1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // merchant_id, sub_merchant_id and session_id are null for unknown_address (nobody to show it
    // to but the operators). Amounts are unbounded numeric: an insert that overflowed would fail
    // the watcher's tick, and with it every later one on that network.
    await queryRunner.query(`
      CREATE TABLE unmatched_transfers (
        id                 text PRIMARY KEY,
        merchant_id        text REFERENCES merchants (id),
        sub_merchant_id    text REFERENCES sub_merchants (id),
        session_id         text REFERENCES checkout_sessions (id),
        livemode           boolean NOT NULL,
        reason             text NOT NULL CHECK (reason IN
                             ('wrong_network', 'wrong_token', 'session_already_paid', 'unknown_address')),
        status             text NOT NULL DEFAULT 'detected' CHECK (status IN ('detected', 'reverted')),
        network            text NOT NULL,
        currency           text NOT NULL,
        token_contract     text NOT NULL,
        from_address       text NOT NULL,
        to_address         text NOT NULL,
        tx_hash            text NOT NULL,
        log_index          integer NOT NULL CHECK (log_index >= 0),
        amount             numeric NOT NULL CHECK (amount > 0),
        amount_base_units  numeric(78, 0) NOT NULL CHECK (amount_base_units > 0),
        block_number       bigint NOT NULL CHECK (block_number >= 0),
        block_hash         text NOT NULL,
        reverted_at        timestamptz,
        created_at         timestamptz NOT NULL DEFAULT now(),
        updated_at         timestamptz NOT NULL DEFAULT now(),
        UNIQUE (network, tx_hash, log_index),
        -- A session (and so a merchant) for every reason but unknown_address, none for it.
        CHECK ((reason = 'unknown_address') = (session_id IS NULL)),
        CHECK ((session_id IS NULL) = (merchant_id IS NULL)),
        CHECK (sub_merchant_id IS NULL OR merchant_id IS NOT NULL)
      )`);
    // The merchant's list, newest first (the same shape as every other list's index).
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_merchant_created_idx
         ON unmatched_transfers (merchant_id, created_at DESC, id DESC) WHERE merchant_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_session_idx
         ON unmatched_transfers (session_id) WHERE session_id IS NOT NULL`,
    );
    // The watcher's reorg check: open transfers of one network from a height up.
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_open_idx
         ON unmatched_transfers (network, block_number) WHERE status <> 'reverted'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE unmatched_transfers`);
  }
}
