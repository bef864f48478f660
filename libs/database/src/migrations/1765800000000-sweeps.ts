import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sweeps: tokens moved from deposit addresses to the hot wallet or the treasury by the network's
 * sweeper (docs/treasury.md). Like payouts, every signed transaction is journaled before its first
 * broadcast, and a sweeper nonce belongs to one sweep for good.
 */
export class Sweeps1765800000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sweeps (
        id                   text PRIMARY KEY,
        network              text NOT NULL,
        currency             text NOT NULL,
        token_contract       text NOT NULL,
        token_decimals       integer NOT NULL,
        -- How it is sent, for good: trackers follow their own kind whatever the settings say now
        -- (an EIP-7702 batch, an EVM gas top-up and transfer, a TRON step sequence).
        kind                 text NOT NULL DEFAULT 'batch' CHECK (kind IN ('batch', 'top_up', 'tron')),
        -- EVM batches: the SweepDelegate the batch calls; its receipt is decoded with this one.
        delegate             text,
        destination          text NOT NULL CHECK (destination IN ('hot_wallet', 'treasury')),
        destination_address  text NOT NULL,
        sweeper_address      text NOT NULL,
        -- EVM: the sweeper's nonce. TRON has none (each step expires instead).
        nonce                bigint CHECK (nonce >= 0),
        status               text NOT NULL CHECK (status IN ('Processing', 'Completed', 'Failed')),
        tx_hash              text,
        block_number         bigint,
        error_reason         text,
        created_at           timestamptz NOT NULL DEFAULT now(),
        updated_at           timestamptz NOT NULL DEFAULT now(),
        completed_at         timestamptz,
        UNIQUE (network, sweeper_address, nonce)
      )`);
    await queryRunner.query(
      `CREATE INDEX sweeps_processing_idx ON sweeps (network, created_at) WHERE status = 'Processing'`,
    );

    // One row per deposit address in a sweep. `amount` is what the confirmed receipt's Swept event
    // says moved (never what was asked); the books post exactly that.
    await queryRunner.query(`
      CREATE TABLE sweep_items (
        sweep_id          text NOT NULL REFERENCES sweeps (id),
        network           text NOT NULL,
        currency          text NOT NULL,
        address           text NOT NULL,
        derivation_index  integer NOT NULL CHECK (derivation_index >= 0),
        expected_amount   numeric(38, 18) NOT NULL CHECK (expected_amount > 0),
        authorized        boolean NOT NULL,
        status            text NOT NULL CHECK (status IN ('Pending', 'Swept', 'Failed', 'Skipped')),
        amount            numeric(38, 18),
        PRIMARY KEY (sweep_id, address)
      )`);
    // An address is in at most one live sweep per token: never two batches racing for it.
    await queryRunner.query(
      `CREATE UNIQUE INDEX sweep_items_live_address_idx ON sweep_items (network, currency, lower(address))
         WHERE status = 'Pending'`,
    );

    // Deposit addresses that may hold tokens not swept yet. A confirmed transfer marks its address
    // pending (since when, up to which block); a balance of zero read at block B >= pending_block
    // is the positive proof that clears it. Frozen addresses (a token's blacklist) are reported,
    // not retried.
    await queryRunner.query(`
      CREATE TABLE sweep_addresses (
        network                text NOT NULL,
        currency               text NOT NULL,
        address                text NOT NULL,
        pending_since          timestamptz,
        pending_block          bigint,
        checked_through_block  bigint NOT NULL DEFAULT -1,
        failures               integer NOT NULL DEFAULT 0,
        frozen_at              timestamptz,
        updated_at             timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, currency, address)
      )`);
    await queryRunner.query(
      `CREATE INDEX sweep_addresses_pending_idx ON sweep_addresses (network, currency, pending_since)
         WHERE pending_since IS NOT NULL`,
    );
    // How far the planner has read confirmed transfers into sweep_addresses, per token.
    await queryRunner.query(`
      CREATE TABLE sweep_cursors (
        network         text NOT NULL,
        currency        text NOT NULL,
        ingested_until  timestamptz NOT NULL,
        PRIMARY KEY (network, currency)
      )`);

    await queryRunner.query(`
      CREATE TABLE sweep_attempts (
        id                        bigserial PRIMARY KEY,
        sweep_id                  text NOT NULL REFERENCES sweeps (id),
        attempt_number            integer NOT NULL CHECK (attempt_number >= 1),
        network                   text NOT NULL,
        -- EVM: one 'batch' transaction (and its replacements). TRON: the steps of one address,
        -- each its own transaction: activate, delegate (energy), transfer, undelegate.
        step                      text NOT NULL DEFAULT 'batch'
          CHECK (step IN ('batch', 'activate', 'delegate', 'transfer', 'undelegate')),
        tx_hash                   text NOT NULL,
        raw_transaction           text NOT NULL,
        max_fee_per_gas           numeric(78, 0),
        max_priority_fee_per_gas  numeric(78, 0),
        gas_limit                 numeric(78, 0),
        -- TRON: raw_data.expiration; past it (proven), the step is signed again.
        expires_at                timestamptz,
        status                    text NOT NULL
          CHECK (status IN ('Signed', 'Broadcast', 'Superseded', 'Expired', 'Mined')),
        broadcast_count           integer NOT NULL DEFAULT 0,
        last_broadcast_at         timestamptz,
        last_broadcast_result     text,
        created_at                timestamptz NOT NULL DEFAULT now(),
        updated_at                timestamptz NOT NULL DEFAULT now(),
        UNIQUE (sweep_id, attempt_number),
        UNIQUE (network, tx_hash)
      )`);

    // The planner's question: which transfers were confirmed on this network since a moment.
    await queryRunner.query(
      `CREATE INDEX session_transactions_confirmed_at_idx ON session_transactions (network, confirmed_at)
         WHERE status = 'Confirmed'`,
    );
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_created_at_idx ON unmatched_transfers (network, created_at)
         WHERE status = 'detected'`,
    );
    // The planner reads unmatched transfers by updated_at: a reorg-revived one is read again.
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_updated_at_idx ON unmatched_transfers (network, updated_at)
         WHERE status = 'detected'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX unmatched_transfers_updated_at_idx`);
    await queryRunner.query(`DROP INDEX unmatched_transfers_created_at_idx`);
    await queryRunner.query(`DROP INDEX session_transactions_confirmed_at_idx`);
    await queryRunner.query(`DROP TABLE sweep_attempts`);
    await queryRunner.query(`DROP TABLE sweep_cursors`);
    await queryRunner.query(`DROP TABLE sweep_addresses`);
    await queryRunner.query(`DROP TABLE sweep_items`);
    await queryRunner.query(`DROP TABLE sweeps`);
  }
}
