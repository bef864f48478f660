import { Logger } from '@nestjs/common';
import { ApiException } from '../errors/api.exception';
import type { SqlRunner } from './sql-runner';
import type { PageRequest } from './pagination-query.dto';
import { countWithinListTotalLimit } from './list-total-timeout';
import { TOTAL_COUNT_CAP } from './total-count-cap';

/** How many records match a list's filters: exactly, or only that there are more than the cap. */
export type TotalCount = { exact: number } | { atLeast: number };

/** What the pagination headers need besides the request. */
export interface PageInfo {
  total: TotalCount;
  /** The cursor (`starting_after`) of the next page, null on the last page. */
  nextCursor: string | null;
}

export interface ListResult<T> {
  rows: T[];
  pageInfo: PageInfo;
}

/**
 * One list over a table with merchant_id, created_at and id columns, newest first on
 * (created_at DESC, id DESC). Every list of the API is built from one of these, so the SQL that
 * runs is the SQL the plan test (test/checkout/list-plans.e2e-spec.ts) explains.
 */
export interface ListSpec {
  /** The table and the alias every condition uses: `checkout_sessions` and `s`. */
  table: string;
  alias: string;
  /** Conditions every listed row meets (tenancy, scope, filters); `merchant_id` comes first. */
  where: string[];
  /**
   * Alternatives of which a row meets at least one (several statuses, a search over several
   * keys). Each is read as its own newest-first index range and the ranges merged, because one
   * index cannot return `status IN (a, b)` or `id = x OR address = x` in created_at order.
   */
  anyOf?: string[];
  params: unknown[];
  /** SELECT list and FROM clause (joins included) of a listed row, over the same alias. */
  select: string;
  from: string;
  /** The merchant whose rows a cursor may name (another merchant's id is an unknown cursor). */
  merchantId: string;
  /** The column clients know a row by and pass back as `starting_after` (default `id`). */
  cursorColumn?: string;
  /** The record's name in the error for an unknown cursor: "No such payout: 'po_x'". */
  noun: string;
}

/** A row's place in the order, as text: JS Dates would cut created_at's microseconds. */
export interface CursorPosition {
  createdAt: string;
  id: string;
}

export interface BuiltQuery {
  sql: string;
  params: unknown[];
}

/** The conditions of branch `index`: its own, minus rows an earlier branch already returns. */
function branchConditions(spec: ListSpec, index: number): string[] {
  const anyOf = spec.anyOf ?? [];
  if (!anyOf.length) return spec.where;
  const earlier = anyOf.slice(0, index).map((condition) => `(${condition}) IS NOT TRUE`);
  return [...spec.where, anyOf[index], ...earlier];
}

function branchCount(spec: ListSpec): number {
  return Math.max(spec.anyOf?.length ?? 0, 1);
}

/**
 * The ids and created_at of one page, newest first: an index range scan per branch that stops
 * after `limit + offset` rows, merged (Merge Append) when there are several.
 */
function pageKeysSql(
  spec: ListSpec,
  bind: (value: unknown) => string,
  limit: number,
  offset: number,
  cursor?: CursorPosition,
): string {
  const a = spec.alias;
  const order = `ORDER BY ${a}.created_at DESC, ${a}.id DESC`;
  const after = cursor
    ? [`(${a}.created_at, ${a}.id) < (${bind(cursor.createdAt)}::timestamptz, ${bind(cursor.id)})`]
    : [];
  const branch = (index: number, branchLimit: string) =>
    `SELECT ${a}.id, ${a}.created_at FROM ${spec.table} ${a}
      WHERE ${[...branchConditions(spec, index), ...after].join(' AND ')} ${order} LIMIT ${branchLimit}`;
  const count = branchCount(spec);
  if (count === 1) return `${branch(0, bind(limit))} OFFSET ${bind(offset)}`;
  const reach = bind(limit + offset);
  const branches = Array.from({ length: count }, (_, index) => `(${branch(index, reach)})`);
  return `SELECT * FROM (${branches.join(' UNION ALL ')}) ${a}
    ${order} LIMIT ${bind(limit)} OFFSET ${bind(offset)}`;
}

/** The column that carries the capped count on every row of a page (removed before mapping). */
const TOTAL_COLUMN = 'list_total_capped';

/**
 * One page of full rows: the keys first (index only), then each row and its joins by id. With
 * `countCap`, every row also carries the capped count (an InitPlan, run once): the page and its
 * total in one round trip.
 */
export function listPageQuery(
  spec: ListSpec,
  limit: number,
  offset: number,
  cursor?: CursorPosition,
  countCap?: number,
): BuiltQuery {
  const params = [...spec.params];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const keys = pageKeysSql(spec, bind, limit, offset, cursor);
  const total =
    countCap === undefined ? '' : `, (${countSql(spec, bind, countCap)}) AS ${TOTAL_COLUMN}`;
  const sql = `SELECT ${spec.select}${total} FROM (${keys}) page_keys, ${spec.from}
    WHERE ${spec.alias}.id = page_keys.id ORDER BY page_keys.created_at DESC, page_keys.id DESC`;
  return { sql, params };
}

/**
 * How many rows match. Capped: reads at most `cap + 1` index entries per branch and returns at
 * most `cap + 1`. Exact (`cap` undefined): counts every match, as costly as the set is large.
 * Branches are disjoint (each excludes the earlier ones' rows), so their counts add up.
 */
export function listCountQuery(spec: ListSpec, cap?: number): BuiltQuery {
  const params = [...spec.params];
  const bind = (value: unknown) => `$${params.push(value)}`;
  return { sql: `SELECT (${countSql(spec, bind, cap)}) AS total`, params };
}

function countSql(spec: ListSpec, bind: (value: unknown) => string, cap?: number): string {
  const a = spec.alias;
  const reach = cap === undefined ? undefined : bind(cap + 1);
  // Capped, each branch is ordered like the page so that it walks the same index and stops early.
  const bounded = reach ? ` ORDER BY ${a}.created_at DESC, ${a}.id DESC LIMIT ${reach}` : '';
  const branches = Array.from(
    { length: branchCount(spec) },
    (_, index) => `(SELECT 1 FROM ${spec.table} ${a}
      WHERE ${branchConditions(spec, index).join(' AND ')}${bounded})`,
  );
  const matched = `SELECT 1 FROM (${branches.join(' UNION ALL ')}) matched`;
  return `SELECT count(*)::int FROM (${matched}${reach ? ` LIMIT ${reach}` : ''}) counted`;
}

/** Where `starting_after` points, or a 400 when it is not one of the merchant's records. */
export function cursorQuery(spec: ListSpec, cursor: string): BuiltQuery {
  return {
    sql: `SELECT created_at::text AS created_at, id FROM ${spec.table}
      WHERE ${spec.cursorColumn ?? 'id'} = $1 AND merchant_id = $2`,
    params: [cursor, spec.merchantId],
  };
}

async function findCursor(
  runner: SqlRunner,
  spec: ListSpec,
  cursor: string,
): Promise<CursorPosition> {
  const { sql, params } = cursorQuery(spec, cursor);
  const [row] = (await runner.query(sql, params)) as Array<{ created_at: string; id: string }>;
  if (!row) throw ApiException.invalid('starting_after', `No such ${spec.noun}: '${cursor}'.`);
  return { createdAt: row.created_at, id: row.id };
}

async function countRows(runner: SqlRunner, query: BuiltQuery): Promise<number> {
  const [row] = (await runner.query(query.sql, query.params)) as Array<{ total: number }>;
  return row.total;
}

/** The capped count as the headers report it. */
function cappedTotal(counted: number): TotalCount {
  return counted > TOTAL_COUNT_CAP ? { atLeast: TOTAL_COUNT_CAP + 1 } : { exact: counted };
}

/**
 * The exact total `include_total` asks for, counted under DATABASE_LIST_TOTAL_TIMEOUT_MS. When
 * that runs out the list still answers: with the capped count (under the same limit), or at
 * worst with what this page proves (`seen`: its rows, and one more when there is a next page),
 * as `X-Total-Count-At-Least`. A total is a convenience; the page is what was asked for.
 */
async function exactOrLowerBound(
  runner: SqlRunner,
  spec: ListSpec,
  page: PageRequest,
  seen: number,
): Promise<TotalCount> {
  const exact = await countWithinListTotalLimit(runner, (within) =>
    countRows(within, listCountQuery(spec)),
  );
  if (exact !== undefined) return { exact };
  // Not an error (the list answers), but a sign that this list wants a narrower default.
  new Logger('Lists').warn(
    { table: spec.table },
    'Exact list total cancelled (list total timeout)',
  );
  const capped = await countWithinListTotalLimit(runner, (within) =>
    countRows(within, listCountQuery(spec, TOTAL_COUNT_CAP)),
  );
  // The exact count ran out of time, so there are more rows than a capped count can tell apart.
  if (capped !== undefined && capped > TOTAL_COUNT_CAP) return cappedTotal(capped);
  // By page number a page with rows proves the rows before it too; rows before a cursor, and
  // before an empty page past the end, prove nothing.
  const before = page.startingAfter === undefined && seen > 0 ? page.offset : 0;
  return { atLeast: Math.max(before + seen, capped ?? 0) };
}

/**
 * One page of a list, newest first, with what the Link and X-Total-Count headers need. One round
 * trip in the common case: the page carries its capped count. A page that is not full after an
 * offset tells the total by itself; an exact count (`include_total`) is a query of its own.
 */
export async function queryList<T extends object>(
  runner: SqlRunner,
  spec: ListSpec,
  page: PageRequest,
): Promise<ListResult<T>> {
  const cursor = page.startingAfter
    ? await findCursor(runner, spec, page.startingAfter)
    : undefined;
  const cap = page.includeTotal ? undefined : TOTAL_COUNT_CAP;
  // One row more than the page says whether there is a next one.
  const { sql, params } = listPageQuery(spec, page.pageSize + 1, page.offset, cursor, cap);
  const fetched = (await runner.query(sql, params)) as Array<T & { [TOTAL_COLUMN]?: number }>;
  const counted = fetched[0]?.[TOTAL_COLUMN];
  for (const row of fetched) delete row[TOTAL_COLUMN];
  const hasMore = fetched.length > page.pageSize;
  const rows: T[] = hasMore ? fetched.slice(0, page.pageSize) : fetched;

  let total: TotalCount;
  if (page.includeTotal) {
    total = await exactOrLowerBound(runner, spec, page, rows.length + (hasMore ? 1 : 0));
  } else if (!cursor && !hasMore && (rows.length > 0 || page.offset === 0)) {
    total = { exact: page.offset + rows.length };
  } else if (counted !== undefined) {
    total = cappedTotal(counted);
  } else {
    // An empty page past the end or after the last cursor: no row carried the count.
    total = cappedTotal(await countRows(runner, listCountQuery(spec, TOTAL_COUNT_CAP)));
  }
  const last = rows[rows.length - 1] as Record<string, unknown> | undefined;
  const nextCursor = hasMore && last ? String(last[spec.cursorColumn ?? 'id']) : null;
  return { rows, pageInfo: { total, nextCursor } };
}
