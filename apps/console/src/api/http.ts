/** The service's error envelope (libs/common/src/errors/error-response.dto.ts). */
export interface ErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  request_id?: string;
}

/** A non-2xx answer: its status, the envelope when there is one and Retry-After when sent. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
    readonly retryAfter: string | null,
  ) {
    super(body?.message ?? `HTTP ${status}`);
  }

  get code(): string | undefined {
    return this.body?.code;
  }
}

/*
 * The session's CSRF token (docs/console.md): read from GET /console/api/session (or any answer
 * carrying one) and sent in X-CSRF-Token on every unsafe request, console API and /v1 alike.
 * Kept in memory only; the cookie itself is HttpOnly.
 */
let csrfToken: string | null = null;

export function rememberCsrfToken(token: string | null): void {
  csrfToken = token;
}

export const CSRF_HEADER = 'X-CSRF-Token';

export function isUnsafeMethod(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

export function csrfHeaders(method: string): Record<string, string> {
  return isUnsafeMethod(method) && csrfToken ? { [CSRF_HEADER]: csrfToken } : {};
}

/*
 * The sub-merchant the console acts for (docs/console.md, Sub-merchant context), null for the
 * merchant itself. Set by the frame from the tab's choice (sub-merchant-context.ts). A PSP's code
 * names a sub-merchant as its API key would: `X-Sub-Merchant-Code` on every call (the API reads it
 * where it creates something), and `sub_merchant_code` on the lists that are scoped by it.
 */
let subMerchantCode: string | null = null;

export const SUB_MERCHANT_HEADER = 'X-Sub-Merchant-Code';

export function setSubMerchantCode(code: string | null): void {
  subMerchantCode = code;
}

export function subMerchantHeaders(): Record<string, string> {
  return subMerchantCode ? { [SUB_MERCHANT_HEADER]: subMerchantCode } : {};
}

/** The /v1 lists that take `sub_merchant_code` (docs/openapi.json, SubMerchantScopeQuery). */
const SCOPED_LISTS: ReadonlySet<string> = new Set([
  '/v1/checkout/sessions',
  '/v1/unmatched-transfers',
  '/v1/balances',
  '/v1/payouts',
  '/v1/payout-batches',
  '/v1/refunds',
  '/v1/events',
  '/v1/webhook-endpoints',
]);

/**
 * A GET's path and query within the sub-merchant context: a scoped list gets the chosen code as
 * `sub_merchant_code` (which wins over `include_sub_merchants`); anything else is unchanged.
 */
export function scopedPath(method: string, pathAndQuery: string): string {
  if (!subMerchantCode || method.toUpperCase() !== 'GET') return pathAndQuery;
  const url = new URL(pathAndQuery, window.location.origin);
  if (!SCOPED_LISTS.has(url.pathname)) return pathAndQuery;
  url.searchParams.delete('include_sub_merchants');
  url.searchParams.set('sub_merchant_code', subMerchantCode);
  return `${url.pathname}${url.search}`;
}

function errorBodyOf(json: unknown): ErrorBody | null {
  const error = (json as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object' && typeof (error as ErrorBody).code === 'string') {
    return error as ErrorBody;
  }
  return null;
}

async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A same-origin JSON call to the console API; rejects with ApiError on a non-2xx answer. */
export async function consoleRequest<T>(
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<T> {
  const sendsBody = method !== 'GET';
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      ...(sendsBody ? { 'Content-Type': 'application/json' } : {}),
      ...csrfHeaders(method),
      ...subMerchantHeaders(),
    },
    body: sendsBody ? JSON.stringify(body ?? {}) : undefined,
  });
  const json = await jsonOf(response);
  if (!response.ok) {
    throw new ApiError(response.status, errorBodyOf(json), response.headers.get('Retry-After'));
  }
  const token = (json as { csrf_token?: unknown } | null)?.csrf_token;
  if (typeof token === 'string') rememberCsrfToken(token);
  return json as T;
}
