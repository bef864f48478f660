import type { Request, Response } from 'express';
import type { PageInfo } from './list-query';
import { MAX_OFFSET_ROWS, PageRequest } from './pagination-query.dto';

// Rebuilt for each link from the request's own query; every other parameter is kept as sent.
const PAGING_PARAMETERS = new Set(['page', 'page_size', 'starting_after']);

/**
 * The spec's lists are bare arrays, so the total and the neighbouring pages travel in headers:
 * `X-Total-Count` when the total is known exactly (`X-Total-Count-At-Least` when a list has more
 * matches than it counts, see docs/pagination.md) and an RFC 8288 `Link` header.
 *
 * Links: `first`; `prev` on pages after the first requested by number; `next` when there is a
 * next page, by number while it is within MAX_OFFSET_ROWS of a `page` request and by
 * `starting_after` otherwise; `last` only when the total is exact and its page is reachable.
 */
export function setPaginationHeaders(
  request: Request,
  response: Response,
  page: PageRequest,
  info: PageInfo,
): void {
  const link = (rel: string, position: { page: number } | { startingAfter: string }) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query)) {
      if (PAGING_PARAMETERS.has(key)) continue;
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
    }
    if ('page' in position) params.set('page', String(position.page));
    params.set('page_size', String(page.pageSize));
    if ('startingAfter' in position) params.set('starting_after', position.startingAfter);
    return `<${request.baseUrl}${request.path}?${params.toString()}>; rel="${rel}"`;
  };
  const reachable = (pageNumber: number) => pageNumber * page.pageSize <= MAX_OFFSET_ROWS;
  const lastPage =
    'exact' in info.total ? Math.max(Math.ceil(info.total.exact / page.pageSize), 1) : undefined;
  const byNumber = page.startingAfter === undefined;

  const links = [link('first', { page: 1 })];
  if (byNumber && page.page > 1) {
    links.push(link('prev', { page: Math.min(page.page - 1, lastPage ?? page.page - 1) }));
  }
  if (info.nextCursor !== null) {
    links.push(
      byNumber && reachable(page.page + 1)
        ? link('next', { page: page.page + 1 })
        : link('next', { startingAfter: info.nextCursor }),
    );
  }
  if (byNumber && lastPage !== undefined && reachable(lastPage)) {
    links.push(link('last', { page: lastPage }));
  }

  if ('exact' in info.total) {
    response.setHeader('X-Total-Count', String(info.total.exact));
  } else {
    response.setHeader('X-Total-Count-At-Least', String(info.total.atLeast));
  }
  response.setHeader('Link', links.join(', '));
}
