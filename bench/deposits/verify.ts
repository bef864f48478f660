import type { Client } from 'pg';
import type { BenchSession } from './database';

/*
 * Correctness after the run, per merchant: the figures mean nothing if a payment was missed,
 * counted twice, credited with the wrong amount, or the ledger disagrees with the sessions.
 */

export interface MerchantCheck {
  merchantId: string;
  expectedPaid: number;
  paid: number;
  paidWithOneConfirmedTransfer: number;
  amountReceivedAsSent: number;
  unpaidTouched: number;
  ledgerMerchantTotal: string;
  sumOfNetAmounts: string;
  ledgerMatches: boolean;
  failures: string[];
}

interface CheckRow {
  paid: number;
  paid_with_one_confirmed: number;
  amount_as_sent: number;
  unpaid_touched: number;
  ledger_total: string;
  net_total: string;
  ledger_matches: boolean;
}

export async function verifyMerchant(
  db: Client,
  merchantId: string,
  paid: BenchSession[],
): Promise<MerchantCheck> {
  const { rows } = await db.query<CheckRow>(
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
                               AND confirmed = 1)::int AS paid_with_one_confirmed,
            count(*) FILTER (WHERE amount_received = sent)::int AS amount_as_sent,
            count(*) FILTER (WHERE sent IS NULL AND (status <> 'Pending' OR amount_received <> 0
                               OR transfers > 0))::int AS unpaid_touched,
            (SELECT ledger::text FROM totals) AS ledger_total,
            (SELECT net::text FROM totals) AS net_total,
            (SELECT ledger = net AND net > 0 FROM totals) AS ledger_matches
       FROM sessions`,
    [merchantId, paid.map((session) => session.id), paid.map((session) => session.amount)],
  );
  return toCheck(merchantId, paid.length, rows[0]);
}

function toCheck(merchantId: string, expected: number, row: CheckRow): MerchantCheck {
  const failures: string[] = [];
  const expect = (actual: number, what: string) => {
    if (actual !== expected) failures.push(`${actual} of ${expected} ${what}`);
  };
  expect(row.paid, 'sessions Paid (exactly the paid ones)');
  expect(row.paid_with_one_confirmed, 'paid sessions with exactly one Confirmed transfer');
  expect(row.amount_as_sent, 'paid sessions with amount_received equal to the amount sent');
  if (row.unpaid_touched) failures.push(`${row.unpaid_touched} unpaid sessions changed`);
  if (!row.ledger_matches) {
    failures.push(
      `ledger merchant total ${row.ledger_total} <> sum of net_amount ${row.net_total}`,
    );
  }
  return {
    merchantId,
    expectedPaid: expected,
    paid: row.paid,
    paidWithOneConfirmedTransfer: row.paid_with_one_confirmed,
    amountReceivedAsSent: row.amount_as_sent,
    unpaidTouched: row.unpaid_touched,
    ledgerMerchantTotal: row.ledger_total,
    sumOfNetAmounts: row.net_total,
    ledgerMatches: row.ledger_matches,
    failures,
  };
}

/** The mainnet-shaped phase's foreign traffic: none of it may reach a session or be recorded. */
export interface ForeignCheck {
  foreignSenders: number;
  blockRange: { from: number; to: number };
  /** Session transactions sent by the foreign senders (must be 0). */
  foreignAsSessionTransactions: number;
  /** Unmatched transfers recorded from the foreign senders (must be 0: not our addresses). */
  foreignAsUnmatched: number | null;
  /** Session transactions in the phase's blocks that are not our payments (must be 0). */
  otherSessionTransactionsInRange: number;
  /** Our payments recorded as session transactions (must be one each). */
  paymentsRecorded: number;
  expectedPayments: number;
  failures: string[];
}

interface ForeignRow {
  foreign_as_session: number;
  foreign_as_unmatched: number | null;
  others_in_range: number;
  payments_recorded: number;
}

export async function verifyForeign(
  db: Client,
  senders: string[],
  blockRange: { from: number; to: number },
  paymentTxHashes: string[],
): Promise<ForeignCheck> {
  const { rows } = await db.query<{ exists: boolean }>(
    `SELECT to_regclass('unmatched_transfers') IS NOT NULL AS exists`,
  );
  const unmatchedCount = rows[0].exists
    ? `(SELECT count(*)::int FROM unmatched_transfers WHERE lower(from_address) = ANY($1))`
    : 'NULL::int';
  const { rows: counts } = await db.query<ForeignRow>(
    `SELECT
       (SELECT count(*)::int FROM session_transactions WHERE lower(from_address) = ANY($1))
         AS foreign_as_session,
       ${unmatchedCount} AS foreign_as_unmatched,
       (SELECT count(*)::int FROM session_transactions
         WHERE network = 'ETHEREUM' AND block_number BETWEEN $2 AND $3
           AND NOT (lower(tx_hash) = ANY($4))) AS others_in_range,
       (SELECT count(*)::int FROM session_transactions WHERE lower(tx_hash) = ANY($4))
         AS payments_recorded`,
    [
      senders.map((sender) => sender.toLowerCase()),
      blockRange.from,
      blockRange.to,
      paymentTxHashes.map((hash) => hash.toLowerCase()),
    ],
  );
  const row = counts[0];
  const failures: string[] = [];
  if (row.foreign_as_session) {
    failures.push(`${row.foreign_as_session} foreign transfers recorded as session transactions`);
  }
  if (row.foreign_as_unmatched) {
    failures.push(`${row.foreign_as_unmatched} foreign transfers recorded as unmatched transfers`);
  }
  if (row.others_in_range) {
    failures.push(
      `${row.others_in_range} session transactions in blocks ${blockRange.from}-${blockRange.to} ` +
        'that are not our payments',
    );
  }
  if (row.payments_recorded !== paymentTxHashes.length) {
    failures.push(
      `${row.payments_recorded} session transactions for ${paymentTxHashes.length} payments`,
    );
  }
  return {
    foreignSenders: senders.length,
    blockRange,
    foreignAsSessionTransactions: row.foreign_as_session,
    foreignAsUnmatched: row.foreign_as_unmatched,
    otherSessionTransactionsInRange: row.others_in_range,
    paymentsRecorded: row.payments_recorded,
    expectedPayments: paymentTxHashes.length,
    failures,
  };
}
