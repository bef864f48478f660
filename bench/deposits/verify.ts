import type { Client } from 'pg';
import type { BenchSession } from './database';

/*
 * Correctness after the run, per merchant: the figures mean nothing if a payment was missed,
 * counted twice, credited with the wrong amount, or the ledger disagrees with the sessions.
 */

export type MerchantCheck = Awaited<ReturnType<typeof verifyMerchant>>;
export type ForeignCheck = Awaited<ReturnType<typeof verifyForeign>>;

export async function verifyMerchant(db: Client, merchantId: string, paid: BenchSession[]) {
  const { rows } = await db.query<{
    paid: number;
    paidWithOneConfirmedTransfer: number;
    amountReceivedAsSent: number;
    unpaidTouched: number;
    ledgerMerchantTotal: string;
    sumOfNetAmounts: string;
    ledgerMatches: boolean;
  }>(
    `WITH sent AS (
       SELECT * FROM unnest($2::text[], $3::numeric[]) AS sent(id, amount)
     ), sessions AS (
       SELECT s.id, s.status, s.amount_received, sent.amount AS sent,
              count(t.id) AS transfers,
              count(t.id) FILTER (WHERE t.status = 'Confirmed') AS confirmed
         FROM checkout_sessions s
         LEFT JOIN sent ON sent.id = s.id
         LEFT JOIN session_transactions t ON t.session_id = s.id
        WHERE s.merchant_id = $1
        GROUP BY s.id, sent.amount
     ), totals AS (
       SELECT (SELECT COALESCE(-sum(amount), 0) FROM ledger_lines WHERE merchant_id = $1) AS ledger,
              (SELECT COALESCE(sum(net_amount), 0) FROM checkout_sessions WHERE merchant_id = $1)
                AS net
     )
     SELECT count(*) FILTER (WHERE status = 'Paid')::int AS paid,
            count(*) FILTER (WHERE sent IS NOT NULL AND status = 'Paid' AND transfers = 1
                               AND confirmed = 1)::int AS "paidWithOneConfirmedTransfer",
            count(*) FILTER (WHERE amount_received = sent)::int AS "amountReceivedAsSent",
            count(*) FILTER (WHERE sent IS NULL AND (status <> 'Pending' OR amount_received <> 0
                               OR transfers > 0))::int AS "unpaidTouched",
            (SELECT ledger::text FROM totals) AS "ledgerMerchantTotal",
            (SELECT net::text FROM totals) AS "sumOfNetAmounts",
            (SELECT ledger = net AND net > 0 FROM totals) AS "ledgerMatches"
       FROM sessions`,
    [merchantId, paid.map((session) => session.id), paid.map((session) => session.amount)],
  );
  const row = rows[0];
  const expected = paid.length;
  const failures: string[] = [];
  const expect = (actual: number, what: string) => {
    if (actual !== expected) failures.push(`${actual} of ${expected} ${what}`);
  };
  expect(row.paid, 'sessions Paid (exactly the paid ones)');
  expect(row.paidWithOneConfirmedTransfer, 'paid sessions with exactly one Confirmed transfer');
  expect(row.amountReceivedAsSent, 'paid sessions with amount_received equal to the amount sent');
  if (row.unpaidTouched) failures.push(`${row.unpaidTouched} unpaid sessions changed`);
  if (!row.ledgerMatches) {
    failures.push(
      `ledger merchant total ${row.ledgerMerchantTotal} <> sum of net_amount ${row.sumOfNetAmounts}`,
    );
  }
  return { merchantId, expectedPaid: expected, ...row, failures };
}

/** The mainnet-shaped phase's foreign traffic: none of it may reach a session or be recorded. */
export async function verifyForeign(
  db: Client,
  senders: string[],
  blockRange: { from: number; to: number },
  paymentTxHashes: string[],
) {
  const { rows } = await db.query<{ exists: boolean }>(
    `SELECT to_regclass('unmatched_transfers') IS NOT NULL AS exists`,
  );
  const unmatchedCount = rows[0].exists
    ? `(SELECT count(*)::int FROM unmatched_transfers WHERE lower(from_address) = ANY($1))`
    : 'NULL::int';
  const { rows: counts } = await db.query<{
    /** Session transactions sent by the foreign senders (must be 0). */
    foreignAsSessionTransactions: number;
    /** Unmatched transfers recorded from the foreign senders (must be 0: not our addresses). */
    foreignAsUnmatched: number | null;
    /** Session transactions in the phase's blocks that are not our payments (must be 0). */
    otherSessionTransactionsInRange: number;
    /** Our payments recorded as session transactions (must be one each). */
    paymentsRecorded: number;
  }>(
    `SELECT
       (SELECT count(*)::int FROM session_transactions WHERE lower(from_address) = ANY($1))
         AS "foreignAsSessionTransactions",
       ${unmatchedCount} AS "foreignAsUnmatched",
       (SELECT count(*)::int FROM session_transactions
         WHERE network = 'ETHEREUM' AND block_number BETWEEN $2 AND $3
           AND NOT (lower(tx_hash) = ANY($4))) AS "otherSessionTransactionsInRange",
       (SELECT count(*)::int FROM session_transactions WHERE lower(tx_hash) = ANY($4))
         AS "paymentsRecorded"`,
    [
      senders.map((sender) => sender.toLowerCase()),
      blockRange.from,
      blockRange.to,
      paymentTxHashes.map((hash) => hash.toLowerCase()),
    ],
  );
  const row = counts[0];
  const failures: string[] = [];
  if (row.foreignAsSessionTransactions) {
    failures.push(
      `${row.foreignAsSessionTransactions} foreign transfers recorded as session transactions`,
    );
  }
  if (row.foreignAsUnmatched) {
    failures.push(`${row.foreignAsUnmatched} foreign transfers recorded as unmatched transfers`);
  }
  if (row.otherSessionTransactionsInRange) {
    failures.push(
      `${row.otherSessionTransactionsInRange} session transactions in blocks ` +
        `${blockRange.from}-${blockRange.to} that are not our payments`,
    );
  }
  if (row.paymentsRecorded !== paymentTxHashes.length) {
    failures.push(
      `${row.paymentsRecorded} session transactions for ${paymentTxHashes.length} payments`,
    );
  }
  return {
    foreignSenders: senders.length,
    blockRange,
    ...row,
    expectedPayments: paymentTxHashes.length,
    failures,
  };
}
