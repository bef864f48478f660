import { ApiError, ErrorBody, scopedPath, subMerchantHeaders } from './http';

/** One page of a list (docs/pagination.md): a bare array, the next page in the Link header. */
export interface ListPage<T> {
  items: T[];
  /** The path and query of the `next` link, or null on the last page. */
  next: string | null;
}

export const PAGE_SIZE = 100;

/** The `rel="next"` target of an RFC 8288 Link header, as a same-origin path and query. */
export function nextLinkOf(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) {
      const url = new URL(match[1], window.location.origin);
      return `${url.pathname}${url.search}`;
    }
  }
  return null;
}

/** A list's path with its filters: empty values are left out, arrays repeat the parameter. */
export function listPath(
  path: string,
  query: Record<string, string | string[] | number | boolean | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** GETs one page of a list (the /v1 API or the console's own), same origin, cookie session. */
export async function fetchListPage<T>(pathAndQuery: string): Promise<ListPage<T>> {
  const response = await fetch(scopedPath('GET', pathAndQuery), {
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...subMerchantHeaders() },
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json as { error?: ErrorBody } | null)?.error ?? null;
    throw new ApiError(response.status, error, response.headers.get('Retry-After'));
  }
  return { items: (json as T[]) ?? [], next: nextLinkOf(response.headers.get('Link')) };
}
