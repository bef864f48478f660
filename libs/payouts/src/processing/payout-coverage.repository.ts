import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * What a coverage check's balance read saw: EVM, the wallet's mined count at the block read;
 * TRON (no nonces), the database's clock just before the read (`coverageClock`).
 */
export type CoverageReadPoint =
  { fromNonce: number; readAt?: undefined } | { fromNonce: null; readAt: Date };

/**
 * SQL of a claim's coverage check: what the hot wallet has promised since a balance read (tokens
 * and fees of payouts it does not show as gone yet), read under the wallet's row lock.
 */
@Injectable()
export class PayoutCoverageRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Net amounts of this token that a balance read earlier does not show as gone yet. EVM
   * (`since.fromNonce`, the wallet's mined count at the block of that read): every payout signed
   * at or above it, finished since or not (a reverted one takes no tokens: Failed). TRON
   * (`since.readAt`, the database's clock just before the read): every payout in flight, mined or
   * not, and every payout Completed since then (mined after the read, its tokens are still in it:
   * review r6, M2); counting one twice only delays. Run under the wallet's row lock, it includes
   * every claim made before this one.
   */
  async committedNetAmount(
    manager: EntityManager,
    network: string,
    walletAddress: string,
    tokenContract: string,
    since: CoverageReadPoint,
  ): Promise<string> {
    const fromNonce = since.fromNonce;
    const [row]: Array<{ total: string }> =
      fromNonce === null
        ? await manager.query(
            `SELECT COALESCE(sum(net_amount), 0) AS total FROM payouts
              WHERE network = $1 AND token_contract = $2
                AND (status = 'Processing' OR (status = 'Completed' AND updated_at >= $3))`,
            [network, tokenContract, since.readAt],
          )
        : await manager.query(
            `SELECT COALESCE(sum(p.net_amount), 0) AS total
               FROM payouts p
              WHERE p.token_contract = $3 AND p.status IN ('Processing', 'Completed')
                AND p.id IN (SELECT payout_id FROM payout_nonces
                              WHERE network = $1 AND wallet_address = $2 AND nonce >= $4)`,
            [network, walletAddress, tokenContract, fromNonce],
          );
    return row.total;
  }

  /**
   * Native coin (wei) that transactions not yet mined as of the balance read may still burn: per
   * nonce at or above `fromNonce`, the largest gas limit x max fee among its live attempts (only
   * one of them can be mined), whatever became of its payout since (mined after the read, it
   * burnt gas the balance read does not show). TRON (`since.readAt`) has no nonces and no gas
   * price: `tronFeeLimitSun` per payout in flight, mined or not, and per payout that went on chain
   * and finished since the read, reverted or not (its fee is not in the read: review r6, M2);
   * counting one twice only delays. Under the wallet's row lock.
   */
  async committedFees(
    manager: EntityManager,
    network: string,
    walletAddress: string,
    since: CoverageReadPoint,
    tronFeeLimitSun: string,
  ): Promise<bigint> {
    const fromNonce = since.fromNonce;
    const [row]: Array<{ total: string }> =
      fromNonce === null
        ? await manager.query(
            `SELECT (count(*) * $2::numeric)::text AS total FROM payouts
              WHERE network = $1
                AND (status = 'Processing'
                     OR (status IN ('Completed', 'Failed') AND updated_at >= $3
                         AND tx_hash IS NOT NULL))`,
            [network, tronFeeLimitSun, since.readAt],
          )
        : await manager.query(
            `SELECT COALESCE(sum(most), 0)::text AS total FROM (
               SELECT max(a.gas_limit * a.max_fee_per_gas) AS most
                 FROM payout_attempts a
                WHERE a.network = $1 AND a.wallet_address = $2 AND a.nonce >= $3
                  AND a.status IN ('Signed', 'Broadcast')
                GROUP BY a.nonce) per_nonce`,
            [network, walletAddress, fromNonce],
          );
    return BigInt(row.total);
  }

  /**
   * The database's clock, read just before a TRON balance read: a payout finished at or after it
   * may have left the wallet after the read (finishing a payout stamps `updated_at` with its
   * transaction's start, which follows the tracker's chain read). The database's clock, never the
   * worker's: the tracker of another machine stamps it.
   */
  async coverageClock(): Promise<Date> {
    const [row]: Array<{ clock: Date }> = await this.dataSource.query(
      `SELECT clock_timestamp() AS clock`,
    );
    return row.clock;
  }
}
