import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unmatched transfers' refunds are held in `refund_hold:N:C`, not in the merchant's
 * `merchant_held` (review finding 8, docs/refunds.md "Ledger"): the money is `unmatched`'s, owed to
 * the sender, and the merchant's held balance must not show it.
 *
 * Refunds of unmatched transfers still in flight (not Completed, Failed or Canceled) were held in
 * `merchant_held` by the code before this one; one entry each, `refund:<id>:hold_moved:<n>`, moves
 * their hold into `refund_hold`, where the code now completes, fails or cancels it from. Where a
 * refund's hold is is read from its own entries (their `merchant_held` lines), so up and down may
 * run any number of times; the ledger stays append-only.
 */
export class RefundHoldAccount1766320000000 implements MigrationInterface {
  name = 'RefundHoldAccount1766320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await moveHolds(queryRunner, 'to_refund_hold');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await moveHolds(queryRunner, 'to_merchant_held');
  }
}

/** Moves the hold of every unmatched transfer's refund in flight that is not there yet. */
async function moveHolds(
  queryRunner: QueryRunner,
  direction: 'to_refund_hold' | 'to_merchant_held',
): Promise<void> {
  // merchant_held's line: +amount takes the hold out of it, -amount puts it back.
  const heldSign = direction === 'to_refund_hold' ? 1 : -1;
  // The refunds in flight and their payouts locked first, in the order every refund change takes
  // them (payout, then refund): a process still running serializes with the move (API, CLI and
  // workers are to be stopped for it all the same, docs/refunds.md "Ledger"). The move below then
  // reads them in a later statement, so it sees what such a process committed meanwhile.
  const inFlight = `r.unmatched_transfer_id IS NOT NULL
                    AND r.status NOT IN ('Completed', 'Failed', 'Canceled')`;
  await queryRunner.query(
    `SELECT p.id FROM payouts p JOIN refunds r ON r.id = p.refund_id
      WHERE ${inFlight} ORDER BY p.id FOR UPDATE OF p`,
  );
  await queryRunner.query(`SELECT r.id FROM refunds r WHERE ${inFlight} ORDER BY r.id FOR UPDATE`);
  await queryRunner.query(
    // One pass over the refunds' entries (their references start with 'refund:').
    `WITH refund_entries AS (
       SELECT split_part(e.reference, ':', 2) AS refund_id, e.id, e.reference
         FROM ledger_entries e WHERE e.reference LIKE 'refund:%'),
     flight AS (
       SELECT r.id, r.merchant_id, r.sub_merchant_id, r.network, r.currency, r.amount,
              COALESCE((SELECT sum(l.amount) FROM refund_entries e
                          JOIN ledger_lines l ON l.entry_id = e.id
                         WHERE e.refund_id = r.id AND l.account LIKE 'merchant_held:%'), 0)
                AS in_held,
              (SELECT count(*) FROM refund_entries e
                WHERE e.refund_id = r.id AND e.reference LIKE '%:hold_moved:%') AS moves
         FROM refunds r
        WHERE r.unmatched_transfer_id IS NOT NULL
          AND r.status NOT IN ('Completed', 'Failed', 'Canceled')),
     moving AS (
       SELECT flight.*, 'refund:' || id || ':hold_moved:' || (moves + 1) AS reference
         FROM flight
        WHERE CASE WHEN $2::int = 1 THEN in_held <> 0 ELSE in_held = 0 END),
     entry AS (
       INSERT INTO ledger_entries (reference, kind)
       SELECT reference, 'refund_hold_moved' FROM moving RETURNING id, reference),
     line AS (
       INSERT INTO ledger_lines
         (entry_id, account, currency, network, amount, merchant_id, sub_merchant_id)
       SELECT entry.id, l.account, moving.currency, moving.network, l.amount, l.merchant_id,
              l.sub_merchant_id
         FROM moving JOIN entry ON entry.reference = moving.reference,
         LATERAL (VALUES
           ('merchant_held:' || moving.merchant_id || ':' || COALESCE(moving.sub_merchant_id, '-')
              || ':' || moving.network || ':' || moving.currency,
            $1::numeric * moving.amount, moving.merchant_id, moving.sub_merchant_id),
           ('refund_hold:' || moving.network || ':' || moving.currency,
            -$1::numeric * moving.amount, NULL, NULL))
           AS l(account, amount, merchant_id, sub_merchant_id)
        ORDER BY l.account)
     SELECT count(*) FROM entry`,
    [heldSign, heldSign],
  );
}
