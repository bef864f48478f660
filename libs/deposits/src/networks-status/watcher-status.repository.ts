import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { errorSummary } from './error-summary';

/** What the deposit watcher last reported for one network (table watcher_status). */
export interface WatcherStatusRecord {
  network: string;
  /** The chain's head as the watcher last saw it, in a tick that committed. */
  chainHead: number | null;
  /** The block that tick scanned up to (the cursor's last_scanned_block). */
  scannedBlock: number | null;
  lastSuccessAt: Date | null;
  /**
   * When a committed tick last reported a head other than the one before (null before any, or
   * when only a worker of an earlier release reported).
   */
  headMovedAt: Date | null;
  lastFailureAt: Date | null;
  /** Already shortened and stripped of URLs and keys (errorSummary). */
  lastError: string | null;
  /** Failed ticks since the last successful one. */
  consecutiveFailures: number;
}

/** Every network's report, with the database's clock to judge their age by. */
export interface WatcherStatusSnapshot {
  nowMs: number;
  statuses: Map<string, WatcherStatusRecord>;
}

/**
 * A watcher_status row as a JSON object, for queries that read it alongside other data in one
 * round trip (the hosted page's public view); parse it with `watcherStatusFromJson`.
 */
export function watcherStatusJsonSql(alias: string): string {
  return `json_build_object(
    'network', ${alias}.network, 'chain_head', ${alias}.chain_head,
    'scanned_block', ${alias}.scanned_block, 'last_success_at', ${alias}.last_success_at,
    'head_moved_at', ${alias}.head_moved_at,
    'last_failure_at', ${alias}.last_failure_at, 'last_error', ${alias}.last_error,
    'consecutive_failures', ${alias}.consecutive_failures)`;
}

/** The JSON of `watcherStatusJsonSql` (bigints as JSON numbers, timestamps as ISO strings). */
export interface WatcherStatusJson {
  network: string;
  chain_head: number | string | null;
  scanned_block: number | string | null;
  last_success_at: string | null;
  head_moved_at: string | null;
  last_failure_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
}

export function watcherStatusFromJson(json: WatcherStatusJson): WatcherStatusRecord {
  const toNumber = (value: number | string | null) => (value === null ? null : Number(value));
  const toDate = (value: string | null) => (value === null ? null : new Date(value));
  return {
    network: json.network,
    chainHead: toNumber(json.chain_head),
    scannedBlock: toNumber(json.scanned_block),
    lastSuccessAt: toDate(json.last_success_at),
    headMovedAt: toDate(json.head_moved_at),
    lastFailureAt: toDate(json.last_failure_at),
    lastError: json.last_error,
    consecutiveFailures: Number(json.consecutive_failures),
  };
}

/**
 * The deposit watcher's health reports, one row per network. Writes are single upserts on the
 * DataSource, outside the watcher's tick transaction, so they never touch its cursor row lock;
 * the last writer wins (only a tick that committed reports success).
 */
@Injectable()
export class WatcherStatusRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** After a tick that committed: the chain head it saw and the block scanned up to. */
  async recordSuccess(network: string, chainHead: number, scannedBlock: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO watcher_status AS w
              (network, chain_head, scanned_block, last_success_at, head_moved_at,
               consecutive_failures, updated_at)
       VALUES ($1, $2, $3, now(), now(), 0, now())
       ON CONFLICT (network) DO UPDATE
          SET chain_head = EXCLUDED.chain_head,
              head_moved_at = CASE WHEN w.chain_head IS DISTINCT FROM EXCLUDED.chain_head
                                   THEN EXCLUDED.head_moved_at ELSE w.head_moved_at END,
              scanned_block = EXCLUDED.scanned_block,
              last_success_at = EXCLUDED.last_success_at,
              consecutive_failures = 0,
              updated_at = EXCLUDED.updated_at`,
      [network, chainHead, scannedBlock],
    );
  }

  /** After a tick that failed on the RPC: why (never a URL or key, only the error's message). */
  async recordFailure(network: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO watcher_status AS w
              (network, last_failure_at, last_error, consecutive_failures, updated_at)
       VALUES ($1, now(), $2, 1, now())
       ON CONFLICT (network) DO UPDATE
          SET last_failure_at = EXCLUDED.last_failure_at,
              last_error = EXCLUDED.last_error,
              consecutive_failures = w.consecutive_failures + 1,
              updated_at = EXCLUDED.updated_at`,
      [network, errorSummary(reason)],
    );
  }

  /** Every network's report (networks never reported on are absent), in one round trip. */
  async findAll(): Promise<WatcherStatusSnapshot> {
    const rows: Array<{ now_ms: string; statuses: WatcherStatusJson[] }> =
      await this.dataSource.query(
        `SELECT (extract(epoch FROM now()) * 1000)::bigint::text AS now_ms,
                COALESCE((SELECT json_agg(${watcherStatusJsonSql('w')} ORDER BY w.network)
                            FROM watcher_status w), '[]'::json) AS statuses`,
      );
    const statuses = rows[0].statuses.map(watcherStatusFromJson);
    return {
      nowMs: Number(rows[0].now_ms),
      statuses: new Map(statuses.map((status) => [status.network, status])),
    };
  }
}
