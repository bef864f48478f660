import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deposit detection (cursors, transfer details), fee rules, and the double-entry ledger. */
export class DepositsAndLedger1764000000000 implements MigrationInterface {
  name = 'DepositsAndLedger1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The last block each network was scanned up to; advanced in the same transaction as the
    // transfers it found, so a crash never skips or repeats a block.
    await queryRunner.query(`
      CREATE TABLE chain_cursors (
        network             text PRIMARY KEY,
        last_scanned_block  bigint NOT NULL,
        updated_at          timestamptz NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      ALTER TABLE session_transactions
        ADD COLUMN currency text NOT NULL,
        ADD COLUMN token_contract text NOT NULL,
        ADD COLUMN from_address text NOT NULL,
        ADD COLUMN to_address text NOT NULL,
        ADD COLUMN amount_base_units numeric(78, 0) NOT NULL,
        ADD COLUMN confirmed_at timestamptz,
        ADD COLUMN reverted_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX session_transactions_network_block_idx ON session_transactions (network, block_number)`,
    );
    await queryRunner.query(
      `CREATE INDEX session_transactions_pending_idx ON session_transactions (network, block_number)
         WHERE status = 'Pending'`,
    );

    await queryRunner.query(`
      ALTER TABLE checkout_sessions
        ADD COLUMN paid_at timestamptz,
        ADD COLUMN ledger_version integer NOT NULL DEFAULT 0`);

    // Per-merchant fee rule; NULL means the configured default.
    await queryRunner.query(`
      ALTER TABLE merchants
        ADD COLUMN fee_percent numeric(7, 4) CHECK (fee_percent >= 0 AND fee_percent < 100),
        ADD COLUMN fee_fixed numeric(38, 18) CHECK (fee_fixed >= 0)`);

    await queryRunner.query(`
      CREATE TABLE ledger_entries (
        id          bigserial PRIMARY KEY,
        reference   text NOT NULL UNIQUE,
        kind        text NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now()
      )`);
    // Signed amounts: debits positive, credits negative; each entry sums to zero (checked at commit).
    await queryRunner.query(`
      CREATE TABLE ledger_lines (
        id               bigserial PRIMARY KEY,
        entry_id         bigint NOT NULL REFERENCES ledger_entries (id),
        account          text NOT NULL,
        currency         text NOT NULL,
        network          text NOT NULL,
        amount           numeric(38, 18) NOT NULL CHECK (amount <> 0),
        merchant_id      text REFERENCES merchants (id),
        sub_merchant_id  text REFERENCES sub_merchants (id)
      )`);
    await queryRunner.query(`CREATE INDEX ledger_lines_entry_idx ON ledger_lines (entry_id)`);
    await queryRunner.query(`CREATE INDEX ledger_lines_account_idx ON ledger_lines (account)`);
    await queryRunner.query(
      `CREATE INDEX ledger_lines_merchant_idx ON ledger_lines (merchant_id, currency, network) WHERE merchant_id IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ledger_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT COALESCE(sum(amount), 0) FROM ledger_lines WHERE entry_id = NEW.entry_id) <> 0 THEN
          RAISE EXCEPTION 'ledger entry % does not balance', NEW.entry_id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER ledger_lines_balanced AFTER INSERT ON ledger_lines
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_must_balance()`);
    // Append-only: history is corrected by new entries, never by editing old ones.
    await queryRunner.query(`
      CREATE FUNCTION ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the ledger is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_lines_append_only BEFORE UPDATE OR DELETE ON ledger_lines
        FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_lines`);
    await queryRunner.query(`DROP TABLE ledger_entries`);
    await queryRunner.query(`DROP FUNCTION ledger_is_append_only`);
    await queryRunner.query(`DROP FUNCTION ledger_entry_must_balance`);
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN fee_percent, DROP COLUMN fee_fixed`);
    await queryRunner.query(
      `ALTER TABLE checkout_sessions DROP COLUMN paid_at, DROP COLUMN ledger_version`,
    );
    await queryRunner.query(`DROP INDEX session_transactions_pending_idx`);
    await queryRunner.query(`DROP INDEX session_transactions_network_block_idx`);
    await queryRunner.query(`
      ALTER TABLE session_transactions
        DROP COLUMN currency, DROP COLUMN token_contract, DROP COLUMN from_address,
        DROP COLUMN to_address, DROP COLUMN amount_base_units, DROP COLUMN confirmed_at,
        DROP COLUMN reverted_at`);
    await queryRunner.query(`DROP TABLE chain_cursors`);
  }
}
