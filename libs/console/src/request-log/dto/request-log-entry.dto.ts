import { RequestLogRecord } from '../request-log.repository';

/** One request of the log as the console shows it. */
export interface RequestLogEntryDto {
  /** The `Request-Id` header of the response; the cursor of `starting_after`. */
  request_id: string;
  /** When the request arrived (ISO 8601, UTC). */
  created_at: string;
  livemode: boolean;
  method: string;
  /** The path without its query string (never logged). */
  path: string;
  status: number;
  /** Who called: an API key, or a member of the team in the console. */
  actor: 'api_key' | 'console_user';
  api_key_id: string | null;
  /** "sk_test_…a1B2" for a call made with a key. */
  key_hint: string | null;
  console_user_id: string | null;
  /** From the request's arrival to the end of its response, in milliseconds. */
  latency_ms: number;
}

export function toRequestLogEntryDto(row: RequestLogRecord): RequestLogEntryDto {
  return {
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
    livemode: row.livemode,
    method: row.method,
    path: row.path,
    status: row.status,
    actor: row.actor,
    api_key_id: row.api_key_id,
    key_hint: row.key_hint,
    console_user_id: row.console_user_id,
    latency_ms: row.latency_ms,
  };
}
