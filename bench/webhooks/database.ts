import type { Client } from 'pg';
import { epochMs } from '../kit/clock';

/** This benchmark's SQL: resets between phases, what the outbox holds, and the claim's cost. */

/** An event written by the generator: its merchant and its events.created_at. */
export interface EventRow {
  id: string;
  merchantId: string;
  createdAt: number;
}

/**
 * Empties the outbox so every phase starts alike: no backlog, no dead tuples, fresh statistics,
 * nothing left to checkpoint. Endpoints and merchants stay.
 */
export async function resetOutbox(db: Client): Promise<void> {
  await db.query('TRUNCATE webhook_attempts, webhook_deliveries, events');
  await db.query('VACUUM ANALYZE events, webhook_deliveries, webhook_attempts, webhook_endpoints');
  await db.query('CHECKPOINT');
}

export async function events(db: Client): Promise<EventRow[]> {
  const { rows } = await db.query<{ id: string; merchant_id: string; created_at: number }>(
    `SELECT id, merchant_id, ${epochMs('created_at')} AS created_at FROM events`,
  );
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchant_id,
    createdAt: row.created_at,
  }));
}

/**
 * What a hanging endpoint that has been dead for a while leaves behind: `count` events of its
 * merchant spread over the last `ageSeconds`, each with its delivery due since it was created
 * (never attempted: the endpoint's slots are held by requests that time out). Written in SQL in the
 * shape EventWriter.record writes them, then analyzed as autovacuum would have.
 */
export async function seedBacklog(
  db: Client,
  endpoint: { id: string; merchantId: string },
  count: number,
  ageSeconds: number,
  data: object,
): Promise<void> {
  await db.query(
    `WITH event AS (
       INSERT INTO events (id, merchant_id, livemode, type, object_type, object_id, sequence, data,
                           created_at)
       SELECT 'evt_backlog' || $2 || '_' || g, $1, false, 'payout.created', 'payout',
              'po_backlog' || $2 || '_' || g, 1, $5::json,
              now() - make_interval(secs => $4 * (1 - g::float8 / $3))
         FROM generate_series(1, $3) g
       RETURNING id, created_at)
     INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at)
     SELECT event.id, $2, 'Pending', event.created_at, event.created_at FROM event`,
    [endpoint.merchantId, endpoint.id, count, ageSeconds, JSON.stringify(data)],
  );
  await db.query('ANALYZE events, webhook_deliveries');
}

/** Deliveries still Pending to these endpoints (queued, retrying or in flight). */
export async function pendingDeliveries(db: Client, endpointIds: string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries
      WHERE status = 'Pending' AND endpoint_id = ANY($1)`,
    [endpointIds],
  );
  return rows[0].n;
}

/** Deliveries a worker holds the lease of: being sent right now. */
export async function leasedDeliveries(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries
      WHERE status = 'Pending' AND lease_token IS NOT NULL`,
  );
  return rows[0].n;
}

export interface Attempts {
  succeeded: number;
  failed: number;
  /** Attempts at a delivery that had been attempted before. */
  retries: number;
  /** Failed attempts by error. */
  errors: Record<string, number>;
  /** The first few failures: when each began (epoch ms), how long it took, why. */
  firstFailures: Array<{ at: number; latencyMs: number; error: string | null }>;
}

const FAILURES_KEPT = 5;

/**
 * Attempts at these endpoints: all, or those that ended in [from, to) (epoch ms; an attempt at a
 * hanging endpoint ends when it times out).
 */
export async function attemptsOf(
  db: Client,
  endpointIds: string[],
  window: { from: number; to: number } | null = null,
): Promise<Attempts> {
  const attempts = `
    SELECT a.succeeded, a.error, a.attempted_at, a.latency_ms,
           row_number() OVER (PARTITION BY a.delivery_id ORDER BY a.attempted_at) AS attempt
      FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
     WHERE d.endpoint_id = ANY($1)`;
  const ended = `attempted_at + latency_ms * interval '1 millisecond'`;
  const inWindow = `($2::float8 IS NULL OR (${ended} >= to_timestamp($2 / 1000.0)
                                            AND ${ended} < to_timestamp($3 / 1000.0)))`;
  const parameters = [endpointIds, window?.from ?? null, window?.to ?? null];
  const { rows } = await db.query<{
    succeeded: boolean;
    error: string | null;
    retry: boolean;
    n: number;
  }>(
    `SELECT succeeded, error, attempt > 1 AS retry, count(*)::int AS n
       FROM (${attempts}) attempts WHERE ${inWindow} GROUP BY 1, 2, 3`,
    parameters,
  );
  const failures = await db.query<{ at: number; latency_ms: number; error: string | null }>(
    `SELECT ${epochMs('attempted_at')} AS at, latency_ms, error
       FROM (${attempts}) attempts WHERE NOT succeeded AND ${inWindow}
      ORDER BY attempted_at LIMIT ${FAILURES_KEPT}`,
    parameters,
  );
  const errors: Record<string, number> = {};
  for (const row of rows.filter((row) => !row.succeeded)) {
    const error = row.error ?? 'HTTP error';
    errors[error] = (errors[error] ?? 0) + row.n;
  }
  const sum = (pick: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(pick).reduce((total, row) => total + row.n, 0);
  return {
    succeeded: sum((row) => row.succeeded),
    failed: sum((row) => !row.succeeded),
    retries: sum((row) => row.retry),
    errors,
    firstFailures: failures.rows.map((row) => ({
      at: row.at,
      latencyMs: row.latency_ms,
      error: row.error,
    })),
  };
}

/** What the dispatcher's claim had to read at one moment, from EXPLAIN ANALYZE. */
export interface ClaimScan {
  ms: number;
  /** Due rows read and thrown away because their endpoint was skipped (at its limit). */
  rowsSkipped: number;
  rowsReturned: number;
}

/**
 * The claim's search for due rows (the dispatcher's `due` CTE, limit 200, without the row locks)
 * with `saturated` skipped as the dispatcher skips endpoints at their concurrency limit. Read
 * only: it changes nothing the worker sees.
 */
export async function claimScan(db: Client, saturated: string[]): Promise<ClaimScan> {
  const { rows } = await db.query<{
    'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }>;
  }>(
    `EXPLAIN (ANALYZE, FORMAT JSON)
     SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'Pending' AND d.next_attempt_at <= clock_timestamp()
        AND d.endpoint_id <> ALL($1::text[])
      ORDER BY d.next_attempt_at LIMIT 200`,
    [saturated],
  );
  const [plan] = rows[0]['QUERY PLAN'];
  return {
    ms: Math.round(plan['Execution Time'] * 100) / 100,
    rowsSkipped: sumOf(plan.Plan, 'Rows Removed by Filter'),
    rowsReturned: plan.Plan['Actual Rows'] ?? 0,
  };
}

interface PlanNode {
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function sumOf(node: PlanNode, key: 'Rows Removed by Filter'): number {
  return (node[key] ?? 0) + (node.Plans ?? []).reduce((sum, child) => sum + sumOf(child, key), 0);
}
