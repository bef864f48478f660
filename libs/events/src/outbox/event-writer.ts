import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, ID_PREFIX, newId } from '@app/common';
import { EventObjectType, EventType } from '../event-types';

export interface NewEvent {
  type: EventType;
  merchantId: string;
  subMerchantId: string | null;
  subMerchantCode: string | null;
  objectType: EventObjectType;
  objectId: string;
  /** The status before the change this event reports (see docs/events-and-webhooks.md). */
  previousStatus: string | null;
  /** `object`: the resource exactly as the API returns it now; more keys per event type. */
  data: { object: object } & Record<string, unknown>;
}

/**
 * The outbox. Runs inside the transaction that changes the object, so an event exists if and only
 * if its change committed, and in the same statement queues one delivery per subscribed endpoint.
 *
 * The caller holds the object's row lock, which orders concurrent changes of one object; the next
 * `sequence` is read under it, and the unique (object_id, sequence) index guards the rule.
 */
@Injectable()
export class EventWriter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async record(manager: EntityManager, event: NewEvent): Promise<string> {
    const id = newId(ID_PREFIX.event);
    await manager.query(
      `WITH event AS (
         INSERT INTO events (id, merchant_id, sub_merchant_id, sub_merchant_code, livemode, type,
                             object_type, object_id, sequence, previous_status, data)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, COALESCE(max(sequence), 0) + 1, $9, $10::json
           FROM events WHERE object_id = $8
         RETURNING id, merchant_id, sub_merchant_id, type)
       INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
       SELECT event.id, endpoint.id, 'Pending', clock_timestamp()
         FROM event JOIN webhook_endpoints endpoint ON endpoint.merchant_id = event.merchant_id
        WHERE endpoint.enabled AND endpoint.deleted_at IS NULL
          AND (endpoint.sub_merchant_id IS NULL
               OR endpoint.sub_merchant_id IS NOT DISTINCT FROM event.sub_merchant_id)
          AND (endpoint.event_types IS NULL OR event.type = ANY(endpoint.event_types))`,
      [
        id,
        event.merchantId,
        event.subMerchantId,
        event.subMerchantCode,
        this.config.livemode,
        event.type,
        event.objectType,
        event.objectId,
        event.previousStatus,
        JSON.stringify(event.data),
      ],
    );
    return id;
  }
}
