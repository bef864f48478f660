import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { whileAdvisoryLocked } from '@app/database';
import { PayoutRecord } from '../payout.types';
import { PayoutAttempt } from './payout-attempt.types';

/** A `Processing` payout with its live attempts (Signed or Broadcast), newest first. */
export interface InFlightPayout extends PayoutRecord {
  attempts: PayoutAttempt[];
}

/** SQL of the payout tracker's tick: its window of payouts in flight, and its per-network lock. */
@Injectable()
export class PayoutTrackingRepository {
  /** Networks whose tracker tick runs in this process. */
  private readonly tracking = new Set<string>();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * The wallets that signed live attempts of this network's `Processing` payouts (one but for a
   * rotated key): the tracker reads their mined counts before it picks its window.
   */
  async inFlightWallets(network: string): Promise<string[]> {
    const rows: Array<{ wallet_address: string }> = await this.dataSource.query(
      `SELECT DISTINCT a.wallet_address
         FROM payouts p JOIN payout_attempts a ON a.payout_id = p.id
        WHERE p.network = $1 AND p.status = 'Processing' AND a.status IN ('Signed', 'Broadcast')`,
      [network],
    );
    return rows.map((row) => row.wallet_address);
  }

  /**
   * One tick's window of `Processing` payouts, with their live attempts (newest first) and the
   * database's clock at the read. `lowest` (EVM): per wallet, the payouts holding its lowest live
   * nonces at or above its mined count, at most `lowest.perWallet` each and `lowest.total` in
   * all: a wallet's later nonces all wait behind them, so every tick must look at them (review
   * r6, M1: a window by `updated_at` left a dropped lowest nonce unseen for good). The rest of
   * `limit`: the payouts after `after` in id order, then from the first again, so a cursor the
   * caller moves to the last id returned walks every payout in flight over successive ticks.
   */
  async inFlight(
    network: string,
    window: {
      limit: number;
      after: string | null;
      lowest?: { minedCounts: Map<string, number>; perWallet: number; total: number };
    },
  ): Promise<{ payouts: InFlightPayout[]; clock: Date | null; walked: string | null }> {
    const wallets = [...(window.lowest?.minedCounts.keys() ?? [])];
    const rows: Array<InFlightPayout & { walk_last: string | null; clock: Date }> =
      await this.dataSource.query(
        `WITH lowest AS (
           SELECT l.payout_id AS id FROM unnest($3::text[], $4::bigint[]) AS w(wallet_address, mined)
             CROSS JOIN LATERAL (
               SELECT DISTINCT ON (a.nonce) a.payout_id, a.nonce FROM payout_attempts a
                WHERE a.network = $1 AND a.wallet_address = w.wallet_address
                  AND a.nonce >= w.mined AND a.status IN ('Signed', 'Broadcast')
                  AND EXISTS (SELECT 1 FROM payouts p
                               WHERE p.id = a.payout_id AND p.status = 'Processing')
                ORDER BY a.nonce LIMIT $5) l
            ORDER BY l.nonce LIMIT $6),
         walk AS (
           SELECT id, lap FROM (
             (SELECT id, 0 AS lap FROM payouts
               WHERE network = $1 AND status = 'Processing' AND ($7::text IS NULL OR id > $7)
                 AND id NOT IN (SELECT id FROM lowest)
               ORDER BY id LIMIT $2)
             UNION ALL
             (SELECT id, 1 AS lap FROM payouts
               WHERE network = $1 AND status = 'Processing' AND $7::text IS NOT NULL AND id <= $7
                 AND id NOT IN (SELECT id FROM lowest)
               ORDER BY id LIMIT $2)) laps
            ORDER BY lap, id LIMIT greatest($2 - (SELECT count(*) FROM lowest), 0)),
         picked AS (SELECT id FROM lowest UNION ALL SELECT id FROM walk)
         SELECT p.*, clock_timestamp() AS clock,
                (SELECT id FROM walk ORDER BY lap DESC, id DESC LIMIT 1) AS walk_last, COALESCE((
                  SELECT json_agg(a ORDER BY a.attempt_number DESC) FROM payout_attempts a
                   WHERE a.payout_id = p.id AND a.status IN ('Signed', 'Broadcast')), '[]'::json) AS attempts
           FROM picked JOIN payouts p ON p.id = picked.id`,
        [
          network,
          window.limit,
          wallets,
          wallets.map((wallet) => window.lowest!.minedCounts.get(wallet)!),
          window.lowest?.perWallet ?? 0,
          window.lowest?.total ?? 0,
          window.after,
        ],
      );
    // The walk goes on after the last id it took this time (the database's order of ids).
    const walked = rows.length ? (rows[0].walk_last ?? window.after) : window.after;
    const payouts = rows.map(({ walk_last: _last, clock: _clock, ...payout }) => payout);
    return { payouts: payouts as InFlightPayout[], clock: rows[0]?.clock ?? null, walked };
  }

  /**
   * Runs `work` unless a tick of this network's tracker runs already, in this process or another
   * (then undefined at once). A session-level advisory lock on a connection of its own: a worker
   * that dies frees it with its connection.
   */
  async whileTrackingLocked<T>(network: string, work: () => Promise<T>): Promise<T | undefined> {
    if (this.tracking.has(network)) return undefined;
    this.tracking.add(network);
    try {
      const run = await whileAdvisoryLocked(
        this.dataSource,
        `payouts.track:${network}`,
        false,
        work,
      );
      return run.ran ? run.value : undefined;
    } finally {
      this.tracking.delete(network);
    }
  }
}
