import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-statement check that every ledger line's entry exists passes a statement that wrote no
 * line. A statement trigger fires even when its INSERT wrote nothing, and re-posting an existing
 * reference is exactly that (LedgerService.postMany joins the lines to the entries it inserted:
 * none). Over an empty transition table array_agg is NULL, the count 0 and cardinality(NULL) NULL,
 * so the comparison was not true and the check raised "ledger line refers to entry <NULL>": the
 * documented no-op of a retried posting failed its caller's transaction.
 *
 * Only that case changes: a statement with lines is checked exactly as before.
 */
export class LedgerLineEntriesEmptyStatement1765300000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(entriesMustExist(true));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(entriesMustExist(false));
  }
}

// No line written (array_agg over nothing is NULL): no entry to look for.
const NO_LINES_PASS = `IF entry_ids IS NULL THEN
        RETURN NULL;
      END IF;`;

/** The trigger function of 1765100000000 (the trigger itself stays as it is). */
function entriesMustExist(passEmptyStatement: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION ledger_lines_entries_must_exist() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      entry_ids bigint[];
      missing bigint;
    BEGIN
      SELECT array_agg(DISTINCT entry_id) INTO entry_ids FROM new_lines;
      ${passEmptyStatement ? NO_LINES_PASS : ''}
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
    END $$`;
}
