import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payouts as a write-ahead journal (payouts, their signed attempts, hot wallets and the nonces they
 * handed out), account balances kept by the ledger itself, and ledger entries that must balance per
 * token (currency and network), not only in total.
 */
export class Payouts1764100000000 implements MigrationInterface {
  name = 'Payouts1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // +10 USDT against -10 USDC summed to zero before; every token must balance on its own.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ledger_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ledger_lines WHERE entry_id = NEW.entry_id
                    GROUP BY currency, network HAVING sum(amount) <> 0) THEN
          RAISE EXCEPTION 'ledger entry % does not balance per currency and network', NEW.entry_id;
        END IF;
        RETURN NULL;
      END $$`);

    // One row per account, kept by a trigger on every ledger line: a payout locks its merchant's
    // row (FOR UPDATE) to check and hold funds, so two payouts can never spend the same money.
    await queryRunner.query(`
      CREATE TABLE ledger_balances (
        account          text PRIMARY KEY,
        kind             text NOT NULL,
        currency         text NOT NULL,
        network          text NOT NULL,
        merchant_id      text REFERENCES merchants (id),
        sub_merchant_id  text REFERENCES sub_merchants (id),
        balance          numeric(38, 18) NOT NULL,
        updated_at       timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX ledger_balances_merchant_idx ON ledger_balances (merchant_id) WHERE merchant_id IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ledger_balance_apply_line() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ledger_balances
          (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
        VALUES (NEW.account, split_part(NEW.account, ':', 1), NEW.currency, NEW.network,
                NEW.merchant_id, NEW.sub_merchant_id, NEW.amount)
        ON CONFLICT (account) DO UPDATE
          SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_lines_apply_balance AFTER INSERT ON ledger_lines
        FOR EACH ROW EXECUTE FUNCTION ledger_balance_apply_line()`);
    await queryRunner.query(`
      INSERT INTO ledger_balances (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
      SELECT account, split_part(account, ':', 1), min(currency), min(network), min(merchant_id),
             min(sub_merchant_id), sum(amount)
        FROM ledger_lines GROUP BY account`);

    // Payout rules per merchant; NULL means the configured default.
    await queryRunner.query(`
      ALTER TABLE merchants
        ADD COLUMN payout_fee_percent numeric(7, 4)
          CHECK (payout_fee_percent >= 0 AND payout_fee_percent < 100),
        ADD COLUMN review_new_destinations boolean NOT NULL DEFAULT false`);

    await queryRunner.query(`
      CREATE TABLE payouts (
        id                  text PRIMARY KEY,
        merchant_id         text NOT NULL REFERENCES merchants (id),
        sub_merchant_id     text REFERENCES sub_merchants (id),
        livemode            boolean NOT NULL,
        status              text NOT NULL
          CHECK (status IN ('Pending', 'Processing', 'Completed', 'Failed', 'Rejected')),
        amount              numeric(38, 18) NOT NULL CHECK (amount > 0),
        fee                 numeric(38, 18) NOT NULL CHECK (fee >= 0),
        net_amount          numeric(38, 18) NOT NULL CHECK (net_amount > 0 AND net_amount = amount - fee),
        fee_percent         numeric(7, 4) NOT NULL,
        fee_fixed           numeric(38, 18) NOT NULL,
        currency            text NOT NULL,
        network             text NOT NULL,
        chain_family        text NOT NULL,
        token_contract      text NOT NULL,
        token_decimals      integer NOT NULL,
        to_address          text NOT NULL,
        description         text,
        metadata            text,
        review_reason       text,
        pending_reason      text,
        reviewed_by         text,
        reviewed_at         timestamptz,
        tx_hash             text,
        error_reason        text,
        next_attempt_at     timestamptz NOT NULL DEFAULT now(),
        completed_at        timestamptz,
        created_at          timestamptz NOT NULL DEFAULT now(),
        updated_at          timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'Completed') = (completed_at IS NOT NULL)),
        CHECK (status <> 'Completed' OR tx_hash IS NOT NULL)
      )`);
    // The same list indexes as sessions: per merchant, newest first, per filter.
    for (const [name, columns, where] of [
      ['payouts_merchant_created_idx', 'merchant_id, created_at DESC, id DESC', ''],
      ['payouts_merchant_status_idx', 'merchant_id, status, created_at DESC, id DESC', ''],
      ['payouts_merchant_network_idx', 'merchant_id, network, created_at DESC, id DESC', ''],
      [
        'payouts_merchant_own_created_idx',
        'merchant_id, created_at DESC, id DESC',
        'WHERE sub_merchant_id IS NULL',
      ],
      [
        'payouts_sub_merchant_created_idx',
        'sub_merchant_id, created_at DESC, id DESC',
        'WHERE sub_merchant_id IS NOT NULL',
      ],
      ['payouts_tx_hash_lower_idx', 'lower(tx_hash)', 'WHERE tx_hash IS NOT NULL'],
      ['payouts_merchant_to_address_idx', 'merchant_id, lower(to_address)', ''],
      // What the worker picks up: small, because finished payouts leave it.
      [
        'payouts_open_idx',
        'network, status, next_attempt_at',
        "WHERE status IN ('Pending', 'Processing')",
      ],
    ] as const) {
      await queryRunner.query(`CREATE INDEX ${name} ON payouts (${columns}) ${where}`);
    }

    // One hot wallet per network; EVM nonces are handed out from here, never from the node alone.
    await queryRunner.query(`
      CREATE TABLE hot_wallets (
        network     text PRIMARY KEY,
        address     text NOT NULL,
        next_nonce  bigint CHECK (next_nonce >= 0),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX hot_wallets_address_idx ON hot_wallets (address)`);

    // A nonce belongs to one payout for good: two payouts can never be signed with the same nonce.
    await queryRunner.query(`
      CREATE TABLE payout_nonces (
        network         text NOT NULL,
        wallet_address  text NOT NULL,
        nonce           bigint NOT NULL CHECK (nonce >= 0),
        payout_id       text NOT NULL REFERENCES payouts (id),
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, wallet_address, nonce)
      )`);

    // Every signed transaction, stored before its first broadcast (the write-ahead journal).
    await queryRunner.query(`
      CREATE TABLE payout_attempts (
        id                        bigserial PRIMARY KEY,
        payout_id                 text NOT NULL REFERENCES payouts (id),
        attempt_number            integer NOT NULL CHECK (attempt_number >= 1),
        network                   text NOT NULL,
        wallet_address            text NOT NULL,
        nonce                     bigint,
        tx_hash                   text NOT NULL,
        raw_transaction           text NOT NULL,
        max_fee_per_gas           numeric(78, 0),
        max_priority_fee_per_gas  numeric(78, 0),
        gas_limit                 numeric(78, 0),
        expires_at                timestamptz,
        status                    text NOT NULL
          CHECK (status IN ('Signed', 'Broadcast', 'Superseded', 'Expired')),
        broadcast_count           integer NOT NULL DEFAULT 0,
        last_broadcast_at         timestamptz,
        last_broadcast_result     text,
        created_at                timestamptz NOT NULL DEFAULT now(),
        updated_at                timestamptz NOT NULL DEFAULT now(),
        UNIQUE (payout_id, attempt_number),
        UNIQUE (network, tx_hash)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payout_attempts`);
    await queryRunner.query(`DROP TABLE payout_nonces`);
    await queryRunner.query(`DROP TABLE hot_wallets`);
    await queryRunner.query(`DROP TABLE payouts`);
    await queryRunner.query(
      `ALTER TABLE merchants DROP COLUMN payout_fee_percent, DROP COLUMN review_new_destinations`,
    );
    await queryRunner.query(`DROP TRIGGER ledger_lines_apply_balance ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_balance_apply_line`);
    await queryRunner.query(`DROP TABLE ledger_balances`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ledger_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT COALESCE(sum(amount), 0) FROM ledger_lines WHERE entry_id = NEW.entry_id) <> 0 THEN
          RAISE EXCEPTION 'ledger entry % does not balance', NEW.entry_id;
        END IF;
        RETURN NULL;
      END $$`);
  }
}
