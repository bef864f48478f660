/* Shapes of the console API's lists (libs/console), typed by hand like console-api.ts. */

export interface RequestLogEntry {
  request_id: string;
  created_at: string;
  livemode: boolean;
  method: string;
  path: string;
  status: number;
  actor: 'api_key' | 'console_user';
  api_key_id: string | null;
  key_hint: string | null;
  console_user_id: string | null;
  latency_ms: number;
}

export const LOGGED_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** One of the user's own live sessions (Settings → Security). */
export interface SecuritySession {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
}

/** One audit log entry (Settings → Activity). */
export interface AuditEntry {
  id: string;
  actor: { type: string; id: string | null; email: string | null };
  action: string;
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}
