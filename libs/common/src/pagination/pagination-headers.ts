import type { Request, Response } from 'express';
import { PageRequest } from './pagination-query.dto';

/**
 * The spec's lists are bare arrays, so the total and the neighbouring pages travel in headers:
 * `X-Total-Count` and an RFC 8288 `Link` header with first/prev/next/last.
 */
export function setPaginationHeaders(
  request: Request,
  response: Response,
  page: PageRequest,
  total: number,
): void {
  const lastPage = Math.max(Math.ceil(total / page.pageSize), 1);
  const link = (targetPage: number, rel: string) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query)) {
      if (key === 'page' || key === 'page_size') continue;
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
    }
    params.set('page', String(targetPage));
    params.set('page_size', String(page.pageSize));
    return `<${request.baseUrl}${request.path}?${params.toString()}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (page.page > 1) links.push(link(Math.min(page.page - 1, lastPage), 'prev'));
  if (page.page < lastPage) links.push(link(page.page + 1, 'next'));
  links.push(link(lastPage, 'last'));
  response.setHeader('X-Total-Count', String(total));
  response.setHeader('Link', links.join(', '));
}
