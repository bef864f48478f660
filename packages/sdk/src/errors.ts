import type { components } from './generated/openapi';

export type ErrorBody = components['schemas']['ErrorBody'];
export type ErrorCode = ErrorBody['code'];
export type ErrorType = ErrorBody['type'];

/** The header that carries the request id (also in every error body as `request_id`). */
export const REQUEST_ID_HEADER = 'Request-Id';

/**
 * A non-2xx answer of the API, built from its error envelope
 * `{ error: { type, code, message, param?, errors?, request_id } }`. Branch on `code` (and
 * `param`), never on `message`; quote `requestId` to support.
 */
export class PaymentsApiError extends Error {
  override readonly name = 'PaymentsApiError';
  readonly status: number;
  /** Null when the answer was not the API's envelope (e.g. a proxy's 502 page). */
  readonly type: ErrorType | null;
  readonly code: ErrorCode | null;
  /** The request field, query parameter or header the error is about, when there is one. */
  readonly param: string | null;
  /** Every refused item of a batch (`batch_items_invalid`). */
  readonly errors: NonNullable<ErrorBody['errors']>;
  /** From the body, else the `Request-Id` header; null when neither came. */
  readonly requestId: string | null;
  /** Milliseconds the API asked to wait (`Retry-After` of a 429/503), null without one. */
  readonly retryAfterMs: number | null;

  constructor(status: number, body: Partial<ErrorBody> | null, headers: Headers) {
    super(body?.message ?? `The API answered HTTP ${status} without an error body.`);
    this.status = status;
    this.type = body?.type ?? null;
    this.code = body?.code ?? null;
    this.param = body?.param ?? null;
    this.errors = body?.errors ?? [];
    this.requestId = body?.request_id ?? headers.get(REQUEST_ID_HEADER);
    this.retryAfterMs = parseRetryAfter(headers.get('Retry-After'));
  }

  /** Reads the envelope of a failed response (consumes its body). */
  static async fromResponse(response: Response): Promise<PaymentsApiError> {
    return new PaymentsApiError(
      response.status,
      envelopeOf(await response.text().catch(() => '')),
      response.headers,
    );
  }

  /** From the `error` openapi-fetch parsed out of a failed response. */
  static fromParsed(response: Response, parsed: unknown): PaymentsApiError {
    const body =
      typeof parsed === 'string' ? envelopeOf(parsed) : envelopeOfObject(parsed ?? undefined);
    return new PaymentsApiError(response.status, body, response.headers);
  }
}

function envelopeOf(text: string): Partial<ErrorBody> | null {
  try {
    return envelopeOfObject(JSON.parse(text));
  } catch {
    return null;
  }
}

function envelopeOfObject(value: unknown): Partial<ErrorBody> | null {
  const error = (value as { error?: unknown } | undefined)?.error;
  return error && typeof error === 'object' ? (error as Partial<ErrorBody>) : null;
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); a date in the
 * past is 0. Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
