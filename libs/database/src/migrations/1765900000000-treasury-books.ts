import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The books know where every unit is (docs/treasury.md):
 * - a completed payout now credits the hot wallet (`hot_wallet:N:C`), where the tokens were,
 *   instead of `payouts_sent:N:C`. The ledger is append-only, so history is reclassified by one
 *   entry per (network, currency) moving each payouts_sent balance into hot_wallet;
 * - unmatched transfers are booked (`deposits` against `unmatched`) once their block is confirmed,
 *   and reversed if a reorg takes them away: `booked` says which state the books are in, `bookings`
 *   numbers the entries (a transfer reverted and mined again is booked again);
 * - reconciliation stores each run and the last balance read of every controlled address, so an
 *   incremental run reads only the addresses that moved.
 */
export class TreasuryBooks1765900000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await reclassify(queryRunner, 'payouts_sent', 'hot_wallet');

    await queryRunner.query(`
      ALTER TABLE unmatched_transfers
        ADD COLUMN booked boolean NOT NULL DEFAULT false,
        ADD COLUMN bookings integer NOT NULL DEFAULT 0 CHECK (bookings >= 0)`);
    // What the watcher books next: detected, not booked yet (every earlier row, then new ones).
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_unbooked_idx ON unmatched_transfers (network, block_number)
         WHERE NOT booked AND status = 'detected'`,
    );
    // What a reorg leaves to reverse: booked, and reverted since.
    await queryRunner.query(
      `CREATE INDEX unmatched_transfers_booked_reverted_idx ON unmatched_transfers (network)
         WHERE booked AND status = 'reverted'`,
    );

    await queryRunner.query(`
      CREATE TABLE reconciliation_runs (
        id            bigserial PRIMARY KEY,
        network       text NOT NULL,
        currency      text NOT NULL,
        block_number  bigint NOT NULL,
        onchain       numeric NOT NULL,
        books         numeric NOT NULL,
        difference    numeric NOT NULL,
        addresses     integer NOT NULL,
        mode          text NOT NULL CHECK (mode IN ('full', 'incremental')),
        pending       jsonb NOT NULL DEFAULT '[]',
        started_at    timestamptz NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX reconciliation_runs_latest_idx ON reconciliation_runs (network, currency, id DESC)`,
    );
    // Base units as read at block_number: what an incremental run reuses for an address that
    // has not moved since.
    await queryRunner.query(`
      CREATE TABLE reconciliation_balances (
        network       text NOT NULL,
        currency      text NOT NULL,
        address       text NOT NULL,
        balance       numeric(78, 0) NOT NULL CHECK (balance >= 0),
        block_number  bigint NOT NULL,
        updated_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, currency, address)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reconciliation_balances`);
    await queryRunner.query(`DROP TABLE reconciliation_runs`);
    await queryRunner.query(`DROP INDEX unmatched_transfers_booked_reverted_idx`);
    await queryRunner.query(`DROP INDEX unmatched_transfers_unbooked_idx`);
    await queryRunner.query(
      `ALTER TABLE unmatched_transfers DROP COLUMN booked, DROP COLUMN bookings`,
    );
    // Appended, never deleted: what up moved into hot_wallet goes back to payouts_sent. The
    // payouts completed since credited hot_wallet and stay there.
    await undoReclassification(queryRunner);
  }
}

/**
 * One entry per (network, currency) with a balance on `from`: `from` back to zero, `to` takes it.
 * A reference already used (up, down, up again) gets the next free suffix.
 */
export async function reclassify(
  queryRunner: QueryRunner,
  from: string,
  to: string,
): Promise<void> {
  await queryRunner.query(
    `WITH source AS (
       SELECT network, currency, balance,
              'reclassify:${from}:' || network || ':' || currency AS base
         FROM ledger_balances WHERE kind = $1 AND balance <> 0),
     numbered AS (
       SELECT source.*, base || COALESCE(
                (SELECT ':' || (count(*) + 1) FROM ledger_entries e
                  WHERE e.reference = base OR e.reference LIKE base || ':%'
                 HAVING count(*) > 0), '') AS reference
         FROM source),
     entry AS (
       INSERT INTO ledger_entries (reference, kind)
       SELECT reference, 'reclassification' FROM numbered RETURNING id, reference),
     line AS (
       INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
       SELECT entry.id, account, numbered.currency, numbered.network, amount
         FROM numbered JOIN entry ON entry.reference = numbered.reference,
         LATERAL (VALUES ($1 || ':' || numbered.network || ':' || numbered.currency,
                          -numbered.balance),
                         ($2 || ':' || numbered.network || ':' || numbered.currency,
                          numbered.balance)) AS l(account, amount)
        ORDER BY account)
     SELECT count(*) FROM entry`,
    [from, to],
  );
}

/** Mirrors every reclassification entry not mirrored yet. */
async function undoReclassification(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(
    `WITH undone AS (
       SELECT e.id, e.reference || ':undone' AS reference FROM ledger_entries e
        WHERE e.kind = 'reclassification' AND e.reference LIKE 'reclassify:payouts_sent:%'
          AND NOT EXISTS (SELECT 1 FROM ledger_entries u WHERE u.reference = e.reference || ':undone')),
     entry AS (
       INSERT INTO ledger_entries (reference, kind)
       SELECT reference, 'reclassification_undone' FROM undone RETURNING id, reference),
     line AS (
       INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
       SELECT entry.id, l.account, l.currency, l.network, -l.amount
         FROM undone JOIN entry ON entry.reference = undone.reference
         JOIN ledger_lines l ON l.entry_id = undone.id
        ORDER BY l.account)
     SELECT count(*) FROM entry`,
  );
}
