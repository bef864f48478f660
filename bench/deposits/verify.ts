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
