import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { PageInfo } from './list-query';
import { setPaginationHeaders } from './pagination-headers';
import { PageRequest, PaginationQueryDto, toPageRequest } from './pagination-query.dto';

/** One page of a list as a service returns it. */
export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

/**
 * Answers a list route: reads the page the query asks for (400 when it cannot be served), runs
 * the list for it, sets the pagination headers and returns the bare array the spec's lists are.
 */
export type PageResponder = <T>(
  query: PaginationQueryDto,
  list: (page: PageRequest) => Promise<Page<T>>,
) => Promise<T[]>;

/**
 * The route's PageResponder, bound to this request and response, so a list route needs neither
 * `@Req()` nor `@Res()`: Nest still sends the returned array, the headers are already set.
 */
export const PageResponder = createParamDecorator(
  (_data: unknown, context: ExecutionContext): PageResponder => {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    return async (query, list) => {
      const page = toPageRequest(query);
      const { items, pageInfo } = await list(page);
      setPaginationHeaders(request, response, page, pageInfo);
      return items;
    };
  },
);
