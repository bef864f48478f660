import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventRecord } from '../events/event.mapper';
import { storableText } from './storable-text';

/** A delivery this worker holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery_id: string;
  lease_token: string;
  attempt_count: number;
  endpoint_id: string;
  merchant_id: string;
  url: string;
  /** Sealed, as stored (WebhookSecretBox); the sender opens them. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  endpoint_live: boolean;
  event: EventRecord;
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  succeeded: boolean;
}

export type DeliveryOutcome =
  { status: 'Succeeded' } | { status: 'Failed' } | { status: 'Pending'; retryInMs: number };

/**
 * webhook_deliveries as the worker's queue. A claim leases due deliveries by moving their
 * next_attempt_at past the attempt's longest possible duration: if the worker dies, the lease
 * runs out and any worker sends it again, so nothing is lost (receivers dedupe on webhook-id).
 */
@Injectable()
export class DeliveryQueueRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Leases up to `limit` due deliveries, none of the endpoints and merchants to skip. */
  async claim(
    limit: number,
    skip: { endpoints: string[]; merchants: string[] },
    leaseMs: number,
    leaseToken: string,
  ): Promise<ClaimedDelivery[]> {
    const rows: Array<Omit<ClaimedDelivery, 'event'> & { event: EventRecord }> =
      await this.dataSource.query(
        `WITH due AS (
           SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
            WHERE d.status = 'Pending' AND d.next_attempt_at <= clock_timestamp()
              AND d.endpoint_id <> ALL($2::text[]) AND w.merchant_id <> ALL($5::text[])
            ORDER BY d.next_attempt_at
            LIMIT $1
            FOR UPDATE OF d SKIP LOCKED),
         claimed AS (
           UPDATE webhook_deliveries d
              SET next_attempt_at = clock_timestamp() + $3 * interval '1 millisecond',
                  lease_token = $4, updated_at = now()
             FROM due WHERE d.id = due.id
           RETURNING d.id, d.event_id, d.endpoint_id, d.attempt_count)
         SELECT c.id AS delivery_id, $4 AS lease_token, c.attempt_count, c.endpoint_id,
                w.merchant_id, w.url,
                w.secret, w.previous_secret, w.previous_secret_expires_at,
                (w.enabled AND w.deleted_at IS NULL) AS endpoint_live, row_to_json(e) AS event
           FROM claimed c JOIN events e ON e.id = c.event_id
           JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
        [limit, skip.endpoints, leaseMs, leaseToken, skip.merchants],
      );
    return rows;
  }

  /** Gives leased deliveries back, due now (this worker will not send them); locks in id order. */
  async release(deliveryIds: string[], leaseToken: string): Promise<void> {
    if (!deliveryIds.length) return;
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp(), lease_token = NULL,
              updated_at = now()
        WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND status = 'Pending'
                      ORDER BY id FOR UPDATE)`,
      [deliveryIds, leaseToken],
    );
  }

  /**
   * Moves an endpoint's due deliveries (those not in flight) to `delayMs` from now, while its
   * breaker is open: claims then never walk past a dead endpoint's queue to reach live ones.
   */
  async postpone(endpointId: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries
          SET next_attempt_at = clock_timestamp() + $2 * interval '1 millisecond', updated_at = now()
        WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE endpoint_id = $1 AND status = 'Pending' AND lease_token IS NULL
                        AND next_attempt_at < clock_timestamp() + $2 * interval '1 millisecond'
                      ORDER BY id FOR UPDATE SKIP LOCKED)`,
      [endpointId, delayMs],
    );
  }

  /** Parks a delivery whose endpoint was disabled or deleted after it was claimed. */
  async park(deliveryId: string, leaseToken: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET next_attempt_at = NULL, lease_token = NULL, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'Pending'`,
      [deliveryId, leaseToken],
    );
  }

  /**
   * Stores the attempt (it happened, whatever else did) and moves the delivery on, if this worker
   * still holds its lease: a worker that stalled past its lease must not undo a newer attempt.
   * The receiver's text is made storable first: one statement does both, so text PostgreSQL
   * refused would leave the delivery leased, to be sent again when the lease ran out, forever.
   */
  async recordAttempt(
    claim: ClaimedDelivery,
    attempt: AttemptRecord,
    outcome: DeliveryOutcome,
  ): Promise<void> {
    await this.dataSource.query(
      `WITH moved AS (
         UPDATE webhook_deliveries
            SET status = $3, attempt_count = attempt_count + 1, last_attempt_at = $4,
                next_attempt_at = CASE WHEN $3 = 'Pending'
                                       THEN clock_timestamp() + $5 * interval '1 millisecond' END,
                lease_token = NULL, updated_at = now()
          WHERE id = $1 AND lease_token = $2
          RETURNING id)
       INSERT INTO webhook_attempts
         (delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error, succeeded)
       VALUES ($1, $4, $6, $7, $8, $9, $10)`,
      [
        claim.delivery_id,
        claim.lease_token,
        outcome.status,
        attempt.attemptedAt,
        outcome.status === 'Pending' ? outcome.retryInMs : 0,
        attempt.statusCode,
        attempt.latencyMs,
        storableText(attempt.responseExcerpt),
        storableText(attempt.error),
        attempt.succeeded,
      ],
    );
  }
}
