import { MigrationInterface, QueryRunner } from 'typeorm';

/** Merchants, API keys, pay-address pool, checkout sessions, their transactions, idempotency keys. */
export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchants (
        id          text PRIMARY KEY,
        kind        text NOT NULL CHECK (kind IN ('direct', 'psp')),
        name        text NOT NULL,
        logo_url    text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE api_keys (
        id           text PRIMARY KEY,
        merchant_id  text NOT NULL REFERENCES merchants (id),
        key_hash     bytea NOT NULL UNIQUE,
        key_hint     text NOT NULL,
        livemode     boolean NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        revoked_at   timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_merchant_idx ON api_keys (merchant_id)`);

    // Next unused derivation index per HD key; ranges are reserved with one UPDATE ... RETURNING.
    await queryRunner.query(`
      CREATE TABLE hd_index_counters (
        chain_family     text NOT NULL,
        key_fingerprint  text NOT NULL,
        next_index       integer NOT NULL DEFAULT 0,
        PRIMARY KEY (chain_family, key_fingerprint)
      )`);

    await queryRunner.query(`
      CREATE TABLE pay_addresses (
        chain_family      text NOT NULL,
        key_fingerprint   text NOT NULL,
        derivation_index  integer NOT NULL CHECK (derivation_index >= 0),
        address           text NOT NULL UNIQUE,
        created_at        timestamptz NOT NULL DEFAULT now(),
        claimed_at        timestamptz,
        PRIMARY KEY (chain_family, key_fingerprint, derivation_index)
      )`);
    await queryRunner.query(`
      CREATE INDEX pay_addresses_unclaimed_idx
        ON pay_addresses (chain_family, key_fingerprint, derivation_index)
        WHERE claimed_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE checkout_sessions (
        id                   text PRIMARY KEY,
        merchant_id          text NOT NULL REFERENCES merchants (id),
        livemode             boolean NOT NULL,
        status               text NOT NULL CHECK (status IN ('Pending', 'Paid', 'Underpaid', 'Expired')),
        amount               numeric(38, 18) NOT NULL CHECK (amount > 0),
        amount_received      numeric(38, 18) NOT NULL DEFAULT 0,
        fee_amount           numeric(38, 18) NOT NULL DEFAULT 0,
        net_amount           numeric(38, 18) NOT NULL DEFAULT 0,
        currency             text NOT NULL,
        network              text NOT NULL,
        chain_family         text NOT NULL,
        currency_contract    text NOT NULL,
        pay_address          text NOT NULL UNIQUE,
        key_fingerprint      text NOT NULL,
        derivation_index     integer NOT NULL,
        pricing_amount       numeric(38, 18) NOT NULL,
        pricing_currency     text NOT NULL,
        exchange_rate        numeric(24, 8) NOT NULL,
        client_reference_id  text,
        success_url          text,
        cancel_url           text,
        created_at           timestamptz NOT NULL DEFAULT now(),
        expires_at           timestamptz NOT NULL,
        updated_at           timestamptz NOT NULL DEFAULT now()
      )`);
    // Lists are always per merchant, newest first; each filter gets an index that keeps that order.
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_merchant_created_idx ON checkout_sessions (merchant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_merchant_status_idx ON checkout_sessions (merchant_id, status, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_merchant_network_idx ON checkout_sessions (merchant_id, network, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_pay_address_lower_idx ON checkout_sessions (lower(pay_address))`,
    );
    await queryRunner.query(
      `CREATE INDEX checkout_sessions_open_expiry_idx ON checkout_sessions (expires_at) WHERE status = 'Pending'`,
    );

    await queryRunner.query(`
      CREATE TABLE session_transactions (
        id            text PRIMARY KEY,
        session_id    text NOT NULL REFERENCES checkout_sessions (id),
        network       text NOT NULL,
        tx_hash       text NOT NULL,
        log_index     integer NOT NULL,
        amount        numeric(38, 18) NOT NULL CHECK (amount >= 0),
        status        text NOT NULL CHECK (status IN ('Pending', 'Confirmed', 'Reverted')),
        block_number  bigint NOT NULL,
        block_hash    text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        updated_at    timestamptz NOT NULL DEFAULT now(),
        UNIQUE (network, tx_hash, log_index)
      )`);
    await queryRunner.query(
      `CREATE INDEX session_transactions_session_idx ON session_transactions (session_id, block_number, log_index)`,
    );
    await queryRunner.query(
      `CREATE INDEX session_transactions_tx_hash_lower_idx ON session_transactions (lower(tx_hash))`,
    );

    // One row per (merchant, key, endpoint); the primary key is what makes concurrent retries safe.
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        merchant_id      text NOT NULL REFERENCES merchants (id),
        idempotency_key  text NOT NULL,
        endpoint         text NOT NULL,
        request_hash     text NOT NULL,
        response_status  integer NOT NULL,
        response_body    jsonb NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        expires_at       timestamptz NOT NULL,
        PRIMARY KEY (merchant_id, idempotency_key, endpoint)
      )`);
    await queryRunner.query(
      `CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
    await queryRunner.query(`DROP TABLE session_transactions`);
    await queryRunner.query(`DROP TABLE checkout_sessions`);
    await queryRunner.query(`DROP TABLE pay_addresses`);
    await queryRunner.query(`DROP TABLE hd_index_counters`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE merchants`);
  }
}
