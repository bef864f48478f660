import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListResult, ListSpec, PageRequest, queryList } from '@app/common';

/** A row of api_request_log as the list reads it. */
export interface RequestLogRecord {
  request_id: string;
  created_at: Date;
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

export interface RequestLogFilter {
  merchantId: string;
  statuses?: number[];
  methods?: string[];
  createdAfter?: Date;
  createdBefore?: Date;
}

/**
 * The request log of one merchant as SQL, newest first. One status is a range of the
 * (merchant_id, status, created_at, id) index; several are one range each, merged in order.
 * Methods are few and common, so they are checked row by row along the index.
 * Clients page by request id (`starting_after=req_...`): the bigint id stays internal.
 */
export function requestLogListSpec(filter: RequestLogFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const where = [`l.merchant_id = ${bind(filter.merchantId)}`];
  const statuses = [...new Set(filter.statuses ?? [])];
  const anyOf = statuses.map((status) => `l.status = ${bind(status)}`);
  if (anyOf.length === 1) where.push(...anyOf.splice(0));
  const methods = [...new Set(filter.methods ?? [])];
  if (methods.length) where.push(`l.method = ANY(${bind(methods)}::text[])`);
  if (filter.createdAfter) where.push(`l.created_at > ${bind(filter.createdAfter)}`);
  if (filter.createdBefore) where.push(`l.created_at < ${bind(filter.createdBefore)}`);
  return {
    table: 'api_request_log',
    alias: 'l',
    where,
    anyOf,
    params,
    select: `l.request_id, l.created_at, l.livemode, l.method, l.path, l.status, l.actor,
             l.api_key_id, l.key_hint, l.console_user_id, l.latency_ms`,
    from: 'api_request_log l',
    merchantId: filter.merchantId,
    cursorColumn: 'request_id',
    noun: 'request',
  };
}

@Injectable()
export class RequestLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page, newest first, with what the pagination headers need. */
  async list(filter: RequestLogFilter, page: PageRequest): Promise<ListResult<RequestLogRecord>> {
    return queryList<RequestLogRecord>(this.dataSource, requestLogListSpec(filter), page);
  }
}
