import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  WatcherStatusJson,
  watcherStatusFromJson,
  watcherStatusJsonSql,
  WatcherStatusRecord,
} from '@app/deposits';

// Counts stop here: a gauge needs "very many", not an exact figure that costs a scan to get.
export const COUNT_CAP = 1_000_000;

export interface PoolKey {
  family: string;
  fingerprint: string;
}

/** What the database says about the deployment's work, read in one round trip. */
export interface DatabaseSnapshot {
  nowMs: number;
  deliveriesDue: number;
  oldestDueSeconds: number | null;
  openPayouts: Array<{ network: string; status: string; count: number }>;
  poolAvailable: Array<{ family: string; count: number }>;
  watchers: WatcherStatusRecord[];
}

/**
 * The queries behind the operations gauges. Each one is served by a partial index and bounded,
 * so a scrape costs the same with a million finished payouts as with none: due deliveries
 * (webhook_deliveries_due_idx), open payouts (payouts_open_idx), unclaimed pay addresses
 * (pay_addresses_unclaimed_idx), and watcher_status (one row per network).
 */
@Injectable()
export class OperationsSnapshotRepository {
  constructor(private readonly dataSource: DataSource) {}

  async read(poolKeys: PoolKey[]): Promise<DatabaseSnapshot> {
    const rows: Array<{
      now_ms: string;
      deliveries_due: number;
      oldest_due_seconds: number | null;
      open_payouts: DatabaseSnapshot['openPayouts'];
      pool: DatabaseSnapshot['poolAvailable'];
      watchers: WatcherStatusJson[];
    }> = await this.dataSource.query(
      `SELECT (extract(epoch FROM now()) * 1000)::bigint::text AS now_ms,
              (SELECT count(*) FROM (
                 SELECT 1 FROM webhook_deliveries
                  WHERE status = 'Pending' AND next_attempt_at IS NOT NULL
                    AND next_attempt_at <= now()
                  LIMIT $1) due)::int AS deliveries_due,
              (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8
                 FROM webhook_deliveries
                WHERE status = 'Pending' AND next_attempt_at IS NOT NULL
                  AND next_attempt_at <= now()) AS oldest_due_seconds,
              COALESCE((SELECT json_agg(json_build_object('network', network, 'status', status,
                                                          'count', n))
                          FROM (SELECT network, status, count(*)::int AS n FROM payouts
                                 WHERE status IN ('Pending', 'Processing')
                                 GROUP BY network, status) open), '[]'::json) AS open_payouts,
              COALESCE((SELECT json_agg(json_build_object('family', k.family, 'count',
                          (SELECT count(*) FROM (
                             SELECT 1 FROM pay_addresses a
                              WHERE a.chain_family = k.family AND a.key_fingerprint = k.fingerprint
                                AND a.claimed_at IS NULL
                              LIMIT $1) free)::int))
                          FROM unnest($2::text[], $3::text[]) AS k(family, fingerprint)),
                       '[]'::json) AS pool,
              COALESCE((SELECT json_agg(${watcherStatusJsonSql('w')}) FROM watcher_status w),
                       '[]'::json) AS watchers`,
      [COUNT_CAP, poolKeys.map((key) => key.family), poolKeys.map((key) => key.fingerprint)],
    );
    const row = rows[0];
    return {
      nowMs: Number(row.now_ms),
      deliveriesDue: row.deliveries_due,
      oldestDueSeconds: row.oldest_due_seconds,
      openPayouts: row.open_payouts,
      poolAvailable: row.pool,
      watchers: row.watchers.map(watcherStatusFromJson),
    };
  }
}
