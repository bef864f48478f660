import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every ledger line's entry exists: checked once per statement, over the statement's own lines,
 * instead of by a foreign key's query per line.
 *
 * A foreign key checks each inserted line with its own query, through a plan the connection
 * prepares once and keeps: settling 900 payments writes 2,700 lines, 2,700 such queries. On a
 * young ledger that plan is a sequential scan (prepared while ledger_entries had a page), so each
 * check read every entry: 183 of a 256 ms ledger statement (EXPLAIN ANALYZE of a replayed
 * settlement). One query per statement, over the distinct entries its lines name, costs the same
 * on any ledger and never scales with its lines.
 *
 * The rule holds as before: a line cannot be written unless its entry exists, and entries can
 * never go away (ledger_entries is append-only: its trigger refuses UPDATE and DELETE), so what
 * was true when the line was written stays true. The error keeps the foreign key's SQLSTATE.
 */
export class LedgerLineEntriesPerStatement1765100000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION ledger_lines_entries_must_exist() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        entry_ids bigint[];
        missing bigint;
      BEGIN
        SELECT array_agg(DISTINCT entry_id) INTO entry_ids FROM new_lines;
        -- id = ANY(array): index lookups of the ledger's primary key whatever its size (a join
        -- with the transition table, which has no statistics, could choose a full scan).
        IF (SELECT count(*) FROM ledger_entries WHERE id = ANY(entry_ids))
           = cardinality(entry_ids) THEN
          RETURN NULL;
        END IF;
        SELECT wanted.entry_id INTO missing FROM unnest(entry_ids) AS wanted(entry_id)
         WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.id = wanted.entry_id) LIMIT 1;
        RAISE EXCEPTION 'ledger line refers to entry %, which does not exist', missing
          USING ERRCODE = 'foreign_key_violation';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_lines_entries_exist AFTER INSERT ON ledger_lines
        REFERENCING NEW TABLE AS new_lines
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_lines_entries_must_exist()`);
    await queryRunner.query(`ALTER TABLE ledger_lines DROP CONSTRAINT ledger_lines_entry_id_fkey`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ledger_lines ADD CONSTRAINT ledger_lines_entry_id_fkey
         FOREIGN KEY (entry_id) REFERENCES ledger_entries(id)`,
    );
    await queryRunner.query(`DROP TRIGGER ledger_lines_entries_exist ON ledger_lines`);
    await queryRunner.query(`DROP FUNCTION ledger_lines_entries_must_exist()`);
  }
}
