import { MigrationInterface, QueryRunner } from 'typeorm';

// The balances trigger of 1764800000000, unchanged: what `down` puts back.
const APPLY_LINES_BEFORE = `
  CREATE OR REPLACE FUNCTION ledger_balance_apply_lines() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO ledger_balances
      (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
    SELECT account, split_part(account, ':', 1), min(currency), min(network),
           min(merchant_id), min(sub_merchant_id), sum(amount)
      FROM new_lines GROUP BY account ORDER BY account
    ON CONFLICT (account) DO UPDATE
      SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
    RETURN NULL;
  END $$`;

/**
 * The running balance of every merchant balance account (`merchant:`, what a merchant may pay
 * out), one row per entry that moved it: what GET /v1/balance-transactions lists
 * (docs/balance-transactions.md). Written by the balances trigger itself, in the statement that
 * posts the lines, after it has updated (and so locked) the account's balance row: `balance_after`
 * is exact, and `id` and `created_at` (taken after the lock) follow the order in which the
 * postings changed the balance, which entry ids do not (two transactions may take ids in one
 * order and the lock in the other). Amounts are the entry's lines on the account, summed;
 * nothing else writes the table, and it is append-only like the ledger.
 *
 * Existing history is backfilled in entry order (the best order known for it), with the
 * balances table locked against postings meanwhile, so that each account's newest row ends at
 * its balance.
 */
export class LedgerBalanceChanges1766570000000 implements MigrationInterface {
  name = 'LedgerBalanceChanges1766570000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // No posting runs between the backfill and the new trigger (a posting updates this table).
    await queryRunner.query(`LOCK TABLE ledger_balances IN SHARE ROW EXCLUSIVE MODE`);
    // `amount` and `balance_after` are credits (what the service owes the merchant), the sign
    // the API shows: a payment is positive.
    await queryRunner.query(`
      CREATE TABLE ledger_balance_changes (
        id               bigserial PRIMARY KEY,
        public_id        text NOT NULL UNIQUE,
        entry_id         bigint NOT NULL REFERENCES ledger_entries (id),
        kind             text NOT NULL,
        account          text NOT NULL,
        merchant_id      text NOT NULL REFERENCES merchants (id),
        sub_merchant_id  text REFERENCES sub_merchants (id),
        currency         text NOT NULL,
        network          text NOT NULL,
        amount           numeric(38, 18) NOT NULL,
        balance_after    numeric(38, 18) NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (entry_id, account)
      )`);
    // The list's scopes, newest first (docs/pagination.md, "How it stays fast").
    await queryRunner.query(`
      CREATE INDEX ledger_balance_changes_merchant_idx
        ON ledger_balance_changes (merchant_id, created_at DESC, id DESC)`);
    await queryRunner.query(`
      CREATE INDEX ledger_balance_changes_own_idx
        ON ledger_balance_changes (merchant_id, created_at DESC, id DESC)
        WHERE sub_merchant_id IS NULL`);
    await queryRunner.query(`
      CREATE INDEX ledger_balance_changes_sub_merchant_idx
        ON ledger_balance_changes (sub_merchant_id, created_at DESC, id DESC)
        WHERE sub_merchant_id IS NOT NULL`);
    await queryRunner.query(`
      CREATE INDEX ledger_balance_changes_account_idx ON ledger_balance_changes (account, id)`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_balance_changes_append_only
        BEFORE UPDATE OR DELETE ON ledger_balance_changes
        FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);

    await queryRunner.query(`
      INSERT INTO ledger_balance_changes
        (public_id, entry_id, kind, account, merchant_id, sub_merchant_id, currency, network,
         amount, balance_after, created_at)
      SELECT 'txn_' || replace(gen_random_uuid()::text, '-', ''), g.entry_id, e.kind, g.account,
             g.merchant_id, g.sub_merchant_id, g.currency, g.network, g.amount,
             sum(g.amount) OVER (PARTITION BY g.account ORDER BY g.entry_id), e.created_at
        FROM (SELECT entry_id, account, min(merchant_id) AS merchant_id,
                     min(sub_merchant_id) AS sub_merchant_id, min(currency) AS currency,
                     min(network) AS network, -sum(amount) AS amount
                FROM ledger_lines WHERE split_part(account, ':', 1) = 'merchant'
               GROUP BY entry_id, account HAVING sum(amount) <> 0) g
        JOIN ledger_entries e ON e.id = g.entry_id
       ORDER BY g.entry_id, g.account`);

    // After the balance rows are updated (and locked, in account order as before): each entry's
    // change of each merchant balance, its balance after it being the new balance less the
    // changes of the entries after it in this statement.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ledger_balance_apply_lines() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ledger_balances
          (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
        SELECT account, split_part(account, ':', 1), min(currency), min(network),
               min(merchant_id), min(sub_merchant_id), sum(amount)
          FROM new_lines GROUP BY account ORDER BY account
        ON CONFLICT (account) DO UPDATE
          SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
        INSERT INTO ledger_balance_changes
          (public_id, entry_id, kind, account, merchant_id, sub_merchant_id, currency, network,
           amount, balance_after)
        SELECT 'txn_' || replace(gen_random_uuid()::text, '-', ''), g.entry_id, e.kind, g.account,
               g.merchant_id, g.sub_merchant_id, g.currency, g.network, g.amount,
               -b.balance - COALESCE(sum(g.amount) OVER (PARTITION BY g.account ORDER BY g.entry_id
                                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0)
          FROM (SELECT entry_id, account, min(merchant_id) AS merchant_id,
                       min(sub_merchant_id) AS sub_merchant_id, min(currency) AS currency,
                       min(network) AS network, -sum(amount) AS amount
                  FROM new_lines WHERE split_part(account, ':', 1) = 'merchant'
                 GROUP BY entry_id, account HAVING sum(amount) <> 0) g
          JOIN ledger_entries e ON e.id = g.entry_id
          JOIN ledger_balances b ON b.account = g.account
         ORDER BY g.entry_id, g.account;
        RETURN NULL;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(APPLY_LINES_BEFORE);
    await queryRunner.query(`DROP TABLE ledger_balance_changes`);
  }
}
