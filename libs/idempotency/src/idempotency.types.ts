export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_RETENTION_HOURS = 24;

export interface IdempotentRequest {
  merchantId: string;
  /** The Idempotency-Key header, or undefined when the client sent none. */
  key: string | undefined;
  /** Method and route, e.g. "POST /v1/checkout/sessions": a key is scoped to one endpoint. */
  endpoint: string;
  /** Everything that defines the request: the body plus any header that changes its meaning. */
  fingerprint: unknown;
}

export interface StoredResponse<T> {
  status: number;
  body: T;
}

export interface IdempotentResult<T> {
  response: StoredResponse<T>;
  /** True when this is the stored response of an earlier request with the same key. */
  replayed: boolean;
}
