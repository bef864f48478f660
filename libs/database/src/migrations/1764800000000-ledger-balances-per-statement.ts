import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Balances follow the ledger per statement, not per line. Settling a block's payments inserts
 * thousands of lines in one statement, nearly all on three accounts (the deposits account, the
 * merchant's, the fees'): a row trigger updated those three rows thousands of times. The statement
 * trigger sums the new lines per account and applies each sum once, in account order (the lock
 * order every posting keeps, see LedgerService.post).
 */
export class LedgerBalancesPerStatement1764800000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER ledger_lines_apply_balance ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_balance_apply_line`);
    await queryRunner.query(`
      CREATE FUNCTION ledger_balance_apply_lines() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ledger_balances
          (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
        SELECT account, split_part(account, ':', 1), min(currency), min(network),
               min(merchant_id), min(sub_merchant_id), sum(amount)
          FROM new_lines GROUP BY account ORDER BY account
        ON CONFLICT (account) DO UPDATE
          SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_lines_apply_balances AFTER INSERT ON ledger_lines
        REFERENCING NEW TABLE AS new_lines
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_balance_apply_lines()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER ledger_lines_apply_balances ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_balance_apply_lines`);
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
  }
}
