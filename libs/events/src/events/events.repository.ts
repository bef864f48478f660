import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  commonListConditions,
  ListResult,
  ListScope,
  ListSpec,
  PageRequest,
  queryList,
} from '@app/common';
import { EventType } from '../event-types';
import { DeliveryStatus } from './dto/webhook-delivery.dto';
import { EventRecord } from './event.mapper';

export interface EventListFilter {
  merchantId: string;
  scope: ListScope;
  types?: EventType[];
  objectId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  attempts: Array<{
    attempted_at: string;
    status_code: number | null;
    latency_ms: number;
    response_excerpt: string | null;
    error: string | null;
    succeeded: boolean;
  }>;
}

/**
 * The event list as SQL: one type is an equality, several are alternatives (one newest-first
 * index range each); an object's events come from its (object_id, sequence) index.
 */
export function eventListSpec(filter: EventListFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { where, anyOf } = commonListConditions('e', filter, bind);
  const types = [...new Set(filter.types ?? [])];
  if (types.length === 1) where.push(`e.type = ${bind(types[0])}`);
  if (types.length > 1) anyOf.push(...types.map((type) => `e.type = ${bind(type)}`));
  if (filter.objectId) where.push(`e.object_id = ${bind(filter.objectId)}`);
  return {
    table: 'events',
    alias: 'e',
    where,
    anyOf,
    params,
    select: 'e.*',
    from: 'events e',
    merchantId: filter.merchantId,
    noun: 'event',
  };
}

@Injectable()
export class EventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findForMerchant(merchantId: string, id: string): Promise<EventRecord | null> {
    const rows: EventRecord[] = await this.dataSource.query(
      `SELECT * FROM events WHERE id = $1 AND merchant_id = $2`,
      [id, merchantId],
    );
    return rows[0] ?? null;
  }

  /** One page, newest first, with what the pagination headers need. */
  async list(filter: EventListFilter, page: PageRequest): Promise<ListResult<EventRecord>> {
    return queryList<EventRecord>(this.dataSource, eventListSpec(filter), page);
  }

  /** Every delivery of the event with all its attempts, oldest first. */
  async deliveries(eventId: string): Promise<DeliveryRecord[]> {
    return this.dataSource.query(
      `SELECT d.id, d.endpoint_id, w.url, d.status, d.attempt_count, d.next_attempt_at,
              d.last_attempt_at,
              COALESCE((SELECT json_agg(json_build_object(
                         'attempted_at', a.attempted_at, 'status_code', a.status_code,
                         'latency_ms', a.latency_ms, 'response_excerpt', a.response_excerpt,
                         'error', a.error, 'succeeded', a.succeeded) ORDER BY a.attempted_at, a.id)
                          FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.event_id = $1 ORDER BY d.created_at, d.id`,
      [eventId],
    );
  }

  /**
   * Schedules the event again now: to one endpoint, or to every enabled endpoint that receives it.
   * A delivery already in flight is left to finish.
   */
  async resend(event: EventRecord, endpointId: string | null): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
       SELECT $1, w.id, 'Pending', clock_timestamp() FROM webhook_endpoints w
        WHERE w.merchant_id = $2 AND w.deleted_at IS NULL AND w.enabled
          AND (w.sub_merchant_id IS NULL OR w.sub_merchant_id IS NOT DISTINCT FROM $3)
          AND CASE WHEN $4::text IS NULL
                   THEN w.event_types IS NULL OR $5 = ANY(w.event_types)
                   ELSE w.id = $4 END
       ON CONFLICT (event_id, endpoint_id) DO UPDATE
         SET status = 'Pending', next_attempt_at = clock_timestamp(), updated_at = now()
         WHERE webhook_deliveries.status <> 'Pending' OR webhook_deliveries.lease_token IS NULL`,
      [event.id, event.merchant_id, event.sub_merchant_id, endpointId, event.type],
    );
  }
}
