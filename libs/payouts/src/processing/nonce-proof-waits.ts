import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PayoutAttempt } from './payout-journal.repository';

/**
 * How long a payout may wait on a used nonce that no block read proves the consumer of before the
 * worker alerts (an error in the log, and the gauge `payouts_waiting_for_nonce_proof`). A lagging
 * backend or a reorg delays a proof by seconds; this long, it is a node without the block's state
 * and no stored proof, or no block at all.
 */
export const NONCE_PROOF_ALERT_AFTER_MS = 10 * 60_000;

/**
 * Payouts Processing while their nonce is used on chain and no proof of the transaction that
 * used it can be made (per network, for the gauge; docs/operations.md): the payout keeps its
 * funds held and is never signed again on an absence of proof.
 */
export const WAITING_FOR_NONCE_PROOF_SQL = `
  SELECT w.network, count(*)::int AS count
    FROM payout_nonce_proof_waits w JOIN payouts p ON p.id = w.payout_id
   WHERE p.status = 'Processing' AND w.unused_at IS NULL
     AND w.since <= now() - make_interval(secs => ${NONCE_PROOF_ALERT_AFTER_MS / 1000})
   GROUP BY w.network`;

/**
 * Remembers, in the database so that every worker and the gauge agree, since when each payout
 * has waited on an unprovable nonce, and alerts once when that wait grows long.
 */
@Injectable()
export class NonceProofWaits {
  private readonly logger = new Logger(NonceProofWaits.name);

  constructor(private readonly dataSource: DataSource) {}

  /**
   * No proof this tick: the wait starts (or goes on); alerted once past the threshold. `block`:
   * a node names the block (the nonce's consumer, or a receipt looked up alone), but the blocks
   * read do not prove it the chain's (review r9a, N3); `consumer`: no node names one.
   */
  async unproven(
    payoutId: string,
    network: string,
    attempt: PayoutAttempt,
    missing: 'consumer' | 'block' = 'consumer',
  ): Promise<void> {
    const [wait]: Array<{ since: Date; alert: boolean }> = await this.dataSource.query(
      `INSERT INTO payout_nonce_proof_waits AS w (payout_id, network, wallet_address, nonce)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (payout_id) DO UPDATE
         -- Another nonce (re-signed meanwhile), or unused for the whole alert window: a new
         -- wait. Unused for a tick or a few (a balancer's backends flapping): the same wait.
         SET since = CASE WHEN w.nonce = EXCLUDED.nonce AND w.wallet_address = EXCLUDED.wallet_address
                           AND (w.unused_at IS NULL
                                OR w.unused_at > now() - make_interval(secs => $5::double precision))
                          THEN w.since ELSE now() END,
             alerted_at = CASE WHEN w.nonce = EXCLUDED.nonce
                                AND w.wallet_address = EXCLUDED.wallet_address
                                AND (w.unused_at IS NULL
                                     OR w.unused_at > now() - make_interval(secs => $5::double precision))
                               THEN w.alerted_at END,
             unused_at = NULL,
             nonce = EXCLUDED.nonce, wallet_address = EXCLUDED.wallet_address
       RETURNING since,
                 alerted_at IS NULL
                   AND since <= now() - make_interval(secs => $5::double precision) AS alert`,
      [payoutId, network, attempt.wallet_address, attempt.nonce, NONCE_PROOF_ALERT_AFTER_MS / 1000],
    );
    if (!wait?.alert) return;
    const marked = await this.dataSource.query(
      `UPDATE payout_nonce_proof_waits SET alerted_at = now()
        WHERE payout_id = $1 AND alerted_at IS NULL RETURNING payout_id`,
      [payoutId],
    );
    // Once per wait, whichever worker gets there first.
    if (!marked.length) return;
    this.logger.error(
      {
        payoutId,
        network,
        wallet: attempt.wallet_address,
        nonce: attempt.nonce,
        since: wait.since,
      },
      missing === 'block'
        ? 'Payout waits on a block its transaction (or the one that used its nonce) was mined in ' +
            'that the blocks read do not prove the chain: it stays Processing with its funds ' +
            'held. A node on a lost fork, or a block further below the blocks read than the ' +
            'tracker walks (docs/payouts.md, known gaps; docs/operations.md)'
        : 'Payout waits on a used nonce whose consumer cannot be proven: it stays Processing ' +
            'with its funds held. Point the network at a node with the state of the block that ' +
            'used the nonce (an archive node) or check who signed with the hot wallet key ' +
            '(docs/operations.md)',
    );
  }

  /**
   * This tick's count says their nonces are not used (yet): no proof is waited for, so their
   * waits pause (a backend ahead of the others once said used; review r4, F5): the gauge no
   * longer counts them. Kept for the alert window (review r9c, R2): a nonce found used again
   * within it goes on with the same wait, so backends flapping between the two answers still
   * alert; past it the wait goes, as do the waits of payouts no longer Processing.
   */
  async nonceUnused(payoutIds: string[]): Promise<void> {
    await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM payout_nonce_proof_waits w
          WHERE w.unused_at < now() - make_interval(secs => $2::double precision)
             OR NOT EXISTS (SELECT 1 FROM payouts p
                             WHERE p.id = w.payout_id AND p.status = 'Processing')
         RETURNING payout_id
       )
       -- One statement, each row changed once: the pause skips the waits just deleted.
       UPDATE payout_nonce_proof_waits SET unused_at = COALESCE(unused_at, now())
        WHERE payout_id = ANY($1::text[]) AND payout_id NOT IN (SELECT payout_id FROM gone)`,
      [payoutIds, NONCE_PROOF_ALERT_AFTER_MS / 1000],
    );
  }

  /** A proof was made: the wait, if any, ends. */
  async proven(payoutId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM payout_nonce_proof_waits WHERE payout_id = $1`, [
      payoutId,
    ]);
  }
}
