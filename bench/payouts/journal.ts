import type { Client } from 'pg';

/*
 * What PostgreSQL says about the benchmark's payouts: their progress while a phase runs, and
 * afterwards each payout's moments from the write-ahead journal (payouts, payout_attempts) and
 * each merchant's books.
 */

/** Epoch milliseconds (PostgreSQL's clock is this machine's clock). */
const EPOCH_MS = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export interface Progress {
  /** Payouts whose first attempt a node accepted (or knew already). */
  broadcast: number;
  completed: number;
  byStatus: Record<string, number>;
  pendingReasons: Record<string, number>;
}

export async function progress(db: Client, ids: string[]): Promise<Progress> {
  const { rows } = await db.query<{
    status: string;
    reason: string | null;
    n: number;
    broadcast: number;
  }>(
    `SELECT p.status, p.pending_reason AS reason, count(*)::int AS n,
            count(a.id) FILTER (WHERE a.last_broadcast_at IS NOT NULL)::int AS broadcast
       FROM payouts p
       LEFT JOIN payout_attempts a ON a.payout_id = p.id AND a.attempt_number = 1
      WHERE p.id = ANY($1)
      GROUP BY p.status, p.pending_reason`,
    [ids],
  );
  const result: Progress = { broadcast: 0, completed: 0, byStatus: {}, pendingReasons: {} };
  for (const row of rows) {
    result.broadcast += row.broadcast;
    result.byStatus[row.status] = (result.byStatus[row.status] ?? 0) + row.n;
    if (row.status === 'Completed') result.completed += row.n;
    if (row.reason)
      result.pendingReasons[row.reason] = (result.pendingReasons[row.reason] ?? 0) + row.n;
  }
  return result;
}

export function describeProgress(state: Progress): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ');
  const reasons = list(state.pendingReasons);
  return `${state.broadcast} broadcast; ${list(state.byStatus)}${reasons ? ` (pending: ${reasons})` : ''}`;
}

/** One payout's life, in epoch ms. */
export interface PayoutTimes {
  id: string;
  merchantId: string;
  status: string;
  toAddress: string;
  amount: string;
  netAmount: string;
  tokenDecimals: number;
  /** Lower case. */
  txHash: string | null;
  /**
   * now() of the worker's claim transaction that signed and stored the first attempt: when it
   * started, before it waited for the hot wallet's row lock.
   */
  signedAt: number | null;
  /**
   * When a node last accepted the first attempt (payout_attempts.last_broadcast_at): the first
   * broadcast, unless it was broadcast again (then `firstAttemptBroadcasts` > 1).
   */
  broadcastAt: number | null;
  firstAttemptBroadcasts: number;
  attempts: number;
  /** now() of the tracker's completion transaction. */
  completedAt: number | null;
}

export async function payoutTimes(db: Client, ids: string[]): Promise<PayoutTimes[]> {
  const { rows } = await db.query<PayoutTimes>(
    `SELECT p.id, p.merchant_id AS "merchantId", p.status, p.to_address AS "toAddress",
            p.amount::text, p.net_amount::text AS "netAmount", p.token_decimals AS "tokenDecimals",
            lower(p.tx_hash) AS "txHash", ${EPOCH_MS('a.created_at')} AS "signedAt",
            ${EPOCH_MS('a.last_broadcast_at')} AS "broadcastAt",
            COALESCE(a.broadcast_count, 0)::int AS "firstAttemptBroadcasts",
            (SELECT count(*)::int FROM payout_attempts x WHERE x.payout_id = p.id) AS attempts,
            ${EPOCH_MS('p.completed_at')} AS "completedAt"
       FROM payouts p
       LEFT JOIN payout_attempts a ON a.payout_id = p.id AND a.attempt_number = 1
      WHERE p.id = ANY($1)`,
    [ids],
  );
  return rows;
}

export interface MerchantLedger {
  available: string;
  held: string;
  /**
   * What the merchant's completed payouts took out of hot_wallet:ETHEREUM:USDT (an asset,
   * credited as tokens leave): minus the nets sent.
   */
  hotWalletPaidOut: string;
}

export async function merchantLedger(db: Client, merchantId: string): Promise<MerchantLedger> {
  const { rows } = await db.query<MerchantLedger>(
    `SELECT (SELECT COALESCE(-sum(balance), 0) FROM ledger_balances
              WHERE merchant_id = $1 AND kind = 'merchant')::text AS available,
            (SELECT COALESCE(-sum(balance), 0) FROM ledger_balances
              WHERE merchant_id = $1 AND kind = 'merchant_held')::text AS held,
            (SELECT COALESCE(sum(l.amount), 0) FROM ledger_lines l
               JOIN ledger_entries e ON e.id = l.entry_id
              WHERE l.account = 'hot_wallet:ETHEREUM:USDT'
                AND e.reference IN (SELECT 'payout:' || id || ':completed' FROM payouts
                                     WHERE merchant_id = $1))::text AS "hotWalletPaidOut"`,
    [merchantId],
  );
  return rows[0];
}
