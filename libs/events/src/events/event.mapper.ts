import { EventType } from '../event-types';
import { EventDto } from './dto/event.dto';

/** A row of events as stored (data already parsed from json). */
export interface EventRecord {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  livemode: boolean;
  type: EventType;
  object_type: string;
  object_id: string;
  sequence: number;
  previous_status: string | null;
  data: EventDto['data'];
  created_at: Date;
  /** The W3C traceparent of the change that wrote it (tracing on), which its deliveries continue. */
  trace_context?: string | null;
}

/** The one place an event row becomes the public event: the API's body and the webhook's. */
export function toEventDto(row: EventRecord): EventDto {
  return {
    id: row.id,
    type: row.type,
    created_at: new Date(row.created_at).toISOString(),
    livemode: row.livemode,
    sequence: row.sequence,
    previous_status: row.previous_status,
    sub_merchant_code: row.sub_merchant_code,
    data: row.data,
  };
}
