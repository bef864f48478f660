import { EntityManager } from 'typeorm';
import { LedgerEntry } from '@app/ledger';

/**
 * What treasury:settle-fee checks besides the row (review of treasury:settle-fee, M1, M2): whose
 * transaction the fee is, and whether the fee decided is so far above the one booked that a slip
 * of unit (gwei or coins read as wei) is likelier than a fee that grew.
 */

/** The payout or sweep whose attempt the transaction is (none: funding, staking, a deposit's). */
export interface FeeAttempt {
  payout_id: string | null;
  sweep_id: string | null;
  /** The sweep's kind (`batch`, `top_up`, ...), and the attempt's step (`batch`, `cancel`, ...). */
  sweep_kind: string | null;
  sweep_step: string | null;
}

/**
 * One attempt at most of each (both tables are unique on network and tx_hash). The columns
 * treasury:fees lists, as a lateral join on a row `r` of network_fee_receipts.
 */
export const FEE_ATTEMPT_SQL = `
  SELECT (SELECT p.payout_id FROM payout_attempts p
           WHERE p.network = r.network AND p.tx_hash = r.tx_hash) AS payout_id,
         a.sweep_id, s.kind AS sweep_kind, a.step AS sweep_step
    FROM (SELECT 1) one
    LEFT JOIN sweep_attempts a ON a.network = r.network AND a.tx_hash = r.tx_hash
    LEFT JOIN sweeps s ON s.id = a.sweep_id`;

export async function feeAttempt(
  manager: EntityManager,
  network: string,
  txHash: string,
): Promise<FeeAttempt> {
  const [attempt]: FeeAttempt[] = await manager.query(
    `SELECT x.* FROM (SELECT $1::text AS network, $2::text AS tx_hash) r,
            LATERAL (${FEE_ATTEMPT_SQL}) x`,
    [network, txHash],
  );
  return attempt;
}

/**
 * A batch sweep's own transaction (not its cancel): its Swept amounts are the chain's balances at
 * the block, which a reorg can change without changing the fee. The pass compares them only when
 * it makes the fee final itself (correctSweepAmounts); a row settled by an operator is never read
 * again, so the operator must have compared them.
 */
export const isBatchSweep = (attempt: FeeAttempt): boolean =>
  attempt.sweep_kind === 'batch' && attempt.sweep_step === 'batch';

/**
 * Above LARGE_FACTOR times the fee booked (any fee above 0 when 0 was booked: there is nothing to
 * scale), --confirm-large is needed: a correction cannot be undone (the reference is written once).
 */
export const LARGE_FACTOR = 10n;

export const isLarge = (booked: bigint, decided: bigint): boolean =>
  decided > booked * LARGE_FACTOR;

/** An entry as JSON prints it: amounts as exact decimal strings. */
export function printable(entry: LedgerEntry | null) {
  if (!entry) return null;
  return {
    reference: entry.reference,
    kind: entry.kind,
    lines: entry.lines.map((line) => ({
      account: line.account,
      amount: line.amount.toFixed(),
      currency: line.currency,
    })),
  };
}
