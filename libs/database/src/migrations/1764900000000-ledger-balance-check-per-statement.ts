import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Entries are checked for balance once per statement, not once per line at commit. Settling a
 * block's payments writes thousands of lines in one statement: the deferred row trigger ran its
 * query once per line at COMMIT (three times per entry, each summing the same entry). The statement
 * trigger checks every entry the statement touched, summing all its lines (earlier ones included,
 * so adding to a balanced entry later is refused too), per currency and network, in one query.
 *
 * The rule is now stricter: an entry balances at the end of every statement, so its lines are
 * written in one statement (LedgerService does; no half-written entry is ever visible, even inside
 * the transaction that writes it).
 */
export class LedgerBalanceCheckPerStatement1764900000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER ledger_lines_balanced ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_entry_must_balance`);
    await queryRunner.query(`
      CREATE FUNCTION ledger_entries_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        unbalanced bigint;
      BEGIN
        SELECT l.entry_id INTO unbalanced
          FROM ledger_lines l
         WHERE l.entry_id IN (SELECT DISTINCT entry_id FROM new_lines)
         GROUP BY l.entry_id, l.currency, l.network
        HAVING sum(l.amount) <> 0
         LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'ledger entry % does not balance per currency and network', unbalanced;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_lines_balanced AFTER INSERT ON ledger_lines
        REFERENCING NEW TABLE AS new_lines
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_must_balance()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER ledger_lines_balanced ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_entries_must_balance`);
    await queryRunner.query(`
      CREATE FUNCTION ledger_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ledger_lines WHERE entry_id = NEW.entry_id
                    GROUP BY currency, network HAVING sum(amount) <> 0) THEN
          RAISE EXCEPTION 'ledger entry % does not balance per currency and network', NEW.entry_id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER ledger_lines_balanced AFTER INSERT ON ledger_lines
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_must_balance()`);
  }
}
