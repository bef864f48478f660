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
