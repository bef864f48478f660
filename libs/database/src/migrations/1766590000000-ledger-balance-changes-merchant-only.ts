import { MigrationInterface, QueryRunner } from 'typeorm';

// The balances trigger's second half (ledger_balance_changes, migration 1766570000000) joined the
// statement's lines to ledger_entries even when none of them touched a merchant balance: the
// planner could then read ledger_entries once more per statement, on every posting. The lines of
// a statement that touches no `merchant:` account now skip it.
const SKIP_WITHOUT_MERCHANT_LINES = `
    IF NOT EXISTS (SELECT 1 FROM new_lines WHERE split_part(account, ':', 1) = 'merchant') THEN
      RETURN NULL;
    END IF;`;

const APPLY_LINES = (merchantLinesOnly: boolean) => `
  CREATE OR REPLACE FUNCTION ledger_balance_apply_lines() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO ledger_balances
      (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
    SELECT account, split_part(account, ':', 1), min(currency), min(network),
           min(merchant_id), min(sub_merchant_id), sum(amount)
      FROM new_lines GROUP BY account ORDER BY account
    ON CONFLICT (account) DO UPDATE
      SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
    ${merchantLinesOnly ? SKIP_WITHOUT_MERCHANT_LINES : ''}
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
  END $$`;

export class LedgerBalanceChangesMerchantOnly1766590000000 implements MigrationInterface {
  name = 'LedgerBalanceChangesMerchantOnly1766590000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(APPLY_LINES(true));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(APPLY_LINES(false));
  }
}
