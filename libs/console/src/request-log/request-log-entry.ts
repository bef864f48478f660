/** One answered request of a merchant, as the API buffers it before writing (api_request_log). */
export interface RequestLogEntry {
  merchantId: string;
  livemode: boolean;
  method: string;
  /** Without the query string: it can carry addresses, amounts and secrets. */
  path: string;
  status: number;
  actor: 'api_key' | 'console_user';
  /** The key used; its hint is read from api_keys when the batch is written. */
  apiKeyId: string | null;
  consoleUserId: string | null;
  requestId: string;
  latencyMs: number;
  /** When the request arrived. */
  createdAt: Date;
}
