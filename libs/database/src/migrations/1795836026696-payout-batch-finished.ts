import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batch payouts, second part (issue 26):
 *
 * - `payout_batches.finished_at`: set once, in the transaction whose payout change left no item
 *   of the batch `Pending` or `Processing`; the `payout_batch.completed` event is written by the
 *   statement that sets it (WHERE finished_at IS NULL), so it is sent exactly once. Batches
 *   already finished are backfilled (without an event: their items' events were sent).
 * - `payouts_batch_open_idx`: what that statement asks on every final change of a batch's item
 *   (is any item still open?) is one index probe, not a scan of up to 1,000 payouts.
 * - The balances trigger locks balance rows in byte order (COLLATE "C"): the lock order every
 *   posting and the batches' own locks share, whatever the database's collation (under en_US,
 *   `merchant_held:` sorts before `merchant:` and a batch could deadlock with a release).
 */
const APPLY_LINES = (collate: string) => `
  CREATE OR REPLACE FUNCTION ledger_balance_apply_lines() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO ledger_balances
      (account, kind, currency, network, merchant_id, sub_merchant_id, balance)
    SELECT account, split_part(account, ':', 1), min(currency), min(network),
           min(merchant_id), min(sub_merchant_id), sum(amount)
      FROM new_lines GROUP BY account ORDER BY account${collate}
    ON CONFLICT (account) DO UPDATE
      SET balance = ledger_balances.balance + EXCLUDED.balance, updated_at = now();
    IF NOT EXISTS (SELECT 1 FROM new_lines WHERE split_part(account, ':', 1) = 'merchant') THEN
      RETURN NULL;
    END IF;
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

export class PayoutBatchFinished1795836026696 implements MigrationInterface {
  name = 'PayoutBatchFinished1795836026696';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payout_batches ADD COLUMN finished_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX payouts_batch_open_idx ON payouts (batch_id)
        WHERE batch_id IS NOT NULL AND status IN ('Pending', 'Processing')`,
    );
    await queryRunner.query(`
      UPDATE payout_batches b
         SET finished_at = COALESCE((SELECT max(p.updated_at) FROM payouts p WHERE p.batch_id = b.id), now())
       WHERE NOT EXISTS (SELECT 1 FROM payouts p
                          WHERE p.batch_id = b.id AND p.status IN ('Pending', 'Processing'))`);
    await queryRunner.query(APPLY_LINES(' COLLATE "C"'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(APPLY_LINES(''));
    await queryRunner.query(`DROP INDEX payouts_batch_open_idx`);
    await queryRunner.query(`ALTER TABLE payout_batches DROP COLUMN finished_at`);
  }
}
