import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  commonListConditions,
  ListResult,
  ListScope,
  ListSpec,
  PageRequest,
  queryList,
} from '@app/common';
import { EventType } from '../event-types';
import { DisabledReason, WebhookEndpointRecord } from './webhook-endpoint.types';

export interface NewEndpointRow {
  id: string;
  merchantId: string;
  subMerchantId: string | null;
  livemode: boolean;
  url: string;
  description: string | null;
  eventTypes: EventType[] | null;
  /** Sealed (WebhookSecretBox). */
  sealedSecret: string;
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: EventType[] | null;
}

/**
 * The ids of the deliveries matching `condition`, locked in id order. Every statement that
 * updates many deliveries locks them this way, so two of them (an API request and the worker)
 * can never hold each other's rows in a cycle: a deadlock found by bench:webhooks.
 */
function lockedInIdOrder(condition: string): string {
  return `SELECT id FROM webhook_deliveries WHERE ${condition} ORDER BY id FOR UPDATE`;
}

const ENDPOINT_PROJECTION = `w.*, sm.code AS sub_merchant_code`;
const ENDPOINT_SOURCE = `webhook_endpoints w LEFT JOIN sub_merchants sm ON sm.id = w.sub_merchant_id`;

export interface EndpointListFilter {
  merchantId: string;
  scope: ListScope;
}

/** Live endpoints as SQL (their index is partial: deleted ones are not in it). */
export function endpointListSpec(filter: EndpointListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('w', filter, bind);
  // A merchant has a handful of endpoints: its index (not a per-sub-merchant one) serves all scopes.
  if (filter.scope.kind === 'one') where.push(`w.merchant_id = ${bind(filter.merchantId)}`);
  return {
    table: 'webhook_endpoints',
    alias: 'w',
    where: [...where, 'w.deleted_at IS NULL'],
    anyOf,
    params,
    select: ENDPOINT_PROJECTION,
    from: ENDPOINT_SOURCE,
    merchantId: filter.merchantId,
    noun: 'webhook endpoint',
  };
}

@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async countLive(merchantId: string): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM webhook_endpoints WHERE merchant_id = $1 AND deleted_at IS NULL`,
      [merchantId],
    );
    return count;
  }

  async insert(row: NewEndpointRow): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_endpoints
         (id, merchant_id, sub_merchant_id, livemode, url, description, event_types, secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.id,
        row.merchantId,
        row.subMerchantId,
        row.livemode,
        row.url,
        row.description,
        row.eventTypes,
        row.sealedSecret,
      ],
    );
  }

  /** The merchant's live endpoint, or null: another merchant's id looks like an unknown one. */
  async findForMerchant(
    merchantId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WebhookEndpointRecord | null> {
    const rows: WebhookEndpointRecord[] = await manager.query(
      `SELECT ${ENDPOINT_PROJECTION} FROM ${ENDPOINT_SOURCE}
        WHERE w.id = $1 AND w.merchant_id = $2 AND w.deleted_at IS NULL`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /**
   * A live endpoint of the merchant, its row locked until the caller's transaction ends: the
   * lock an event about it needs (EventWriter) and that a concurrent delete waits on.
   */
  async lockForMerchant(
    manager: EntityManager,
    merchantId: string,
    id: string,
  ): Promise<WebhookEndpointRecord | null> {
    const rows: WebhookEndpointRecord[] = await manager.query(
      `SELECT ${ENDPOINT_PROJECTION} FROM ${ENDPOINT_SOURCE}
        WHERE w.id = $1 AND w.merchant_id = $2 AND w.deleted_at IS NULL FOR UPDATE OF w`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /** One page of live endpoints, newest first, with what the pagination headers need. */
  async list(
    filter: EndpointListFilter,
    page: PageRequest,
  ): Promise<ListResult<WebhookEndpointRecord>> {
    return queryList<WebhookEndpointRecord>(this.dataSource, endpointListSpec(filter), page);
  }

  async update(manager: EntityManager, id: string, changes: EndpointChanges): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints
          SET url = CASE WHEN $2 THEN $3 ELSE url END,
              description = CASE WHEN $4 THEN $5 ELSE description END,
              event_types = CASE WHEN $6 THEN $7::text[] ELSE event_types END,
              updated_at = now()
        WHERE id = $1`,
      [
        id,
        changes.url !== undefined,
        changes.url ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.eventTypes !== undefined,
        changes.eventTypes ?? null,
      ],
    );
  }

  /** Stops deliveries: those queued wait (next_attempt_at NULL) until it is enabled again. */
  async disable(manager: EntityManager, id: string, reason: DisabledReason): Promise<boolean> {
    const [{ changed }]: Array<{ changed: number }> = await manager.query(
      `WITH disabled AS (
         UPDATE webhook_endpoints
            SET enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now()
          WHERE id = $1 AND enabled RETURNING id)
       SELECT count(*)::int AS changed FROM disabled`,
      [id, reason],
    );
    // Rows a worker holds are skipped: it parks them itself when it sees the endpoint disabled.
    await manager.query(
      `UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE endpoint_id = $1 AND status = 'Pending' AND lease_token IS NULL
                      ORDER BY id FOR UPDATE SKIP LOCKED)`,
      [id],
    );
    return changed > 0;
  }

  /** Starts deliveries again, the waiting ones first (now). */
  async enable(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints
          SET enabled = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
              updated_at = now()
        WHERE id = $1 AND NOT enabled`,
      [id],
    );
    await manager.query(
      `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp(), updated_at = now()
        WHERE id IN (${lockedInIdOrder(`endpoint_id = $1 AND status = 'Pending' AND next_attempt_at IS NULL`)})`,
      [id],
    );
  }

  /** Deleted endpoints are kept (their deliveries' history refers to them) but receive nothing. */
  async softDelete(manager: EntityManager, id: string): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints SET deleted_at = now(), enabled = false, updated_at = now()
        WHERE id = $1`,
      [id],
    );
    await manager.query(
      `UPDATE webhook_deliveries SET status = 'Canceled', next_attempt_at = NULL, updated_at = now()
        WHERE id IN (${lockedInIdOrder(`endpoint_id = $1 AND status = 'Pending'`)})`,
      [id],
    );
  }

  /** The current secret becomes the previous one (both sealed for this endpoint). */
  async rotateSecret(id: string, sealedSecret: string, graceHours: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_endpoints
          SET previous_secret = CASE WHEN $3 > 0 THEN secret END,
              previous_secret_expires_at = CASE WHEN $3 > 0 THEN now() + $3 * interval '1 hour' END,
              secret = $2, updated_at = now()
        WHERE id = $1`,
      [id, sealedSecret, graceHours],
    );
  }

  /** Failed deliveries of events created in [since, until) go back to the queue; returns how many. */
  async recover(id: string, since: Date, until: Date): Promise<number> {
    const [{ scheduled }]: Array<{ scheduled: number }> = await this.dataSource.query(
      `WITH recovered AS (
         UPDATE webhook_deliveries
            SET status = 'Pending', next_attempt_at = clock_timestamp(), updated_at = now()
          WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
                        WHERE d.endpoint_id = $1 AND d.status = 'Failed'
                          AND e.created_at >= $2 AND e.created_at < $3
                        ORDER BY d.id FOR UPDATE OF d)
          RETURNING id)
       SELECT count(*)::int AS scheduled FROM recovered`,
      [id, since, until],
    );
    return scheduled;
  }
}
