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
