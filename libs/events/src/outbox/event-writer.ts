import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, currentTraceparent, ID_PREFIX, newId } from '@app/common';
import { queryPrepared } from '@app/database';
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

/** Events ready to be written: their ids and the statement's two JSON parameters. */
export interface PreparedEvents {
  ids: string[];
  /** One JSON array of the events' columns. */
  rows: string;
  /** The distinct objects, one JSON document a line. */
  objects: string;
}

/** One delivery per subscribed endpoint of each event the CTE `event` inserted. */
const INSERT_DELIVERIES = `
  INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
  SELECT event.id, endpoint.id, 'Pending', clock_timestamp()
    FROM event JOIN webhook_endpoints endpoint ON endpoint.merchant_id = event.merchant_id
   WHERE endpoint.enabled AND endpoint.deleted_at IS NULL
     AND (endpoint.sub_merchant_id IS NULL
          OR endpoint.sub_merchant_id IS NOT DISTINCT FROM event.sub_merchant_id)
     AND (endpoint.event_types IS NULL OR event.type = ANY(endpoint.event_types))`;

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

  /**
   * One event in a statement much simpler to plan and run than the batch's: most changes (a
   * payout's, an endpoint's) write one event, and through the batch's CTEs each cost PostgreSQL
   * twice the CPU (bench:webhooks delivered 250 events/s instead of 500, payouts were created at
   * 47/s instead of 71 under their merchant's balance lock).
   */
  async record(manager: EntityManager, event: NewEvent): Promise<string> {
    return this.insertOne(manager, event, INSERT_DELIVERIES, []);
  }

  /**
   * One event delivered to one endpoint only, whatever its subscriptions and the merchant's
   * other endpoints: a test event (POST /v1/webhook-endpoints/{id}/test).
   */
  async recordFor(manager: EntityManager, event: NewEvent, endpointId: string): Promise<string> {
    return this.insertOne(
      manager,
      event,
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
       SELECT event.id, $11, 'Pending', clock_timestamp() FROM event`,
      [endpointId],
    );
  }

  private async insertOne(
    manager: EntityManager,
    event: NewEvent,
    insertDeliveries: string,
    extraParams: unknown[],
  ): Promise<string> {
    const id = newId(ID_PREFIX.event);
    // The trace (docs/operations.md, "Traces") travels with the event to its deliveries.
    const traceParam = `$${11 + extraParams.length}`;
    // Prepared: planning this statement cost PostgreSQL more than running it (bench:payouts).
    await queryPrepared(
      manager,
      `WITH event AS (
         INSERT INTO events (id, merchant_id, sub_merchant_id, sub_merchant_code, livemode, type,
                             object_type, object_id, sequence, previous_status, data, trace_context)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, COALESCE(max(sequence), 0) + 1, $9, $10::json,
                ${traceParam}
           FROM events WHERE object_id = $8
         RETURNING id, merchant_id, sub_merchant_id, type)
       ${insertDeliveries}`,
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
        ...extraParams,
        currentTraceparent(),
      ],
    );
    return id;
  }

  /**
   * Many events in one statement, in two halves: a `batch` builds the ids and the statement's
   * parameters without touching the database, a slice of events at a time (a caller may build
   * them while PostgreSQL runs its other statements), `write` runs it. Events are written in the
   * order added: events of one object get consecutive sequences in that order. The caller holds
   * every object's row lock.
   *
   * An `object` shared by several events (the same reference: a session's payment_detected,
   * payment_confirmed and paid events carry one object) is sent once, and each event's `data` is
   * put together in SQL. The objects travel as one text of JSON documents, one a line (JSON text
   * has no raw line break), which PostgreSQL splits in C: no escaping on either side, and each
   * document is parsed only once, when its event's `data` is checked as JSON.
   */
  batch(): EventBatch {
    return new EventBatch();
  }

  /** Writes prepared events in the caller's transaction (see batch). */
  async write(manager: EntityManager, prepared: PreparedEvents): Promise<void> {
    if (!prepared.ids.length) return;
    await manager.query(
      `WITH doc AS (
         SELECT d.value, d.ordinal FROM string_to_table($3, E'\\n') WITH ORDINALITY AS d(value, ordinal)),
       input AS (
         SELECT i.*, row.ordinal FROM json_array_elements($1::json) WITH ORDINALITY AS row(value, ordinal),
              json_to_record(row.value) AS i(id text, merchant_id text, sub_merchant_id text,
                sub_merchant_code text, type text, object_type text, object_id text,
                previous_status text, object_ordinal bigint, extra text)),
       last AS (
         SELECT object_id, max(sequence) AS sequence FROM events
          WHERE object_id IN (SELECT object_id FROM input) GROUP BY object_id),
       event AS (
         INSERT INTO events (id, merchant_id, sub_merchant_id, sub_merchant_code, livemode, type,
                             object_type, object_id, sequence, previous_status, data, trace_context)
         SELECT i.id, i.merchant_id, i.sub_merchant_id, i.sub_merchant_code, $2, i.type,
                i.object_type, i.object_id,
                COALESCE(last.sequence, 0)
                  + row_number() OVER (PARTITION BY i.object_id ORDER BY i.ordinal),
                i.previous_status,
                -- {"object":<object>,<the other keys>}, checked as JSON by the cast.
                ('{"object":' || doc.value || COALESCE(',' || substr(i.extra, 2), '}'))::json,
                $4
           FROM input i JOIN doc ON doc.ordinal = i.object_ordinal
                LEFT JOIN last ON last.object_id = i.object_id
          ORDER BY i.ordinal
         RETURNING id, merchant_id, sub_merchant_id, type)
       ${INSERT_DELIVERIES}`,
      [prepared.rows, this.config.livemode, prepared.objects, currentTraceparent()],
    );
  }
}

/** Events being prepared for one `write` (see EventWriter.batch). */
export class EventBatch {
  private readonly ids: string[] = [];
  private readonly rows: object[] = [];
  private readonly objects: string[] = [];
  private readonly objectIndex = new Map<object, number>();

  add(events: NewEvent[]): void {
    for (const event of events) {
      const id = newId(ID_PREFIX.event);
      const { object, ...others } = event.data;
      const extra = JSON.stringify(others);
      let ordinal = this.objectIndex.get(object);
      if (ordinal === undefined) {
        this.objects.push(JSON.stringify(object));
        ordinal = this.objects.length;
        this.objectIndex.set(object, ordinal);
      }
      this.ids.push(id);
      this.rows.push({
        id,
        merchant_id: event.merchantId,
        sub_merchant_id: event.subMerchantId,
        sub_merchant_code: event.subMerchantCode,
        type: event.type,
        object_type: event.objectType,
        object_id: event.objectId,
        previous_status: event.previousStatus,
        object_ordinal: ordinal,
        // The keys of `data` after `object` (a JSON object's text), or null when it has none.
        extra: extra === '{}' ? null : extra,
      });
    }
  }

  finish(): PreparedEvents {
    return { ids: this.ids, rows: JSON.stringify(this.rows), objects: this.objects.join('\n') };
  }
}
