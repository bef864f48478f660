/** Which records of a PSP a list shows (structurally the sub-merchants lib's SubMerchantScope). */
export type ListScope = { kind: 'own' } | { kind: 'all' } | { kind: 'one'; subMerchantId: string };

/** The filters every merchant list shares (sessions, payouts). */
export interface CommonListFilter {
  merchantId: string;
  scope: ListScope;
  statuses?: string[];
  network?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/**
 * WHERE conditions of a list over a table aliased `alias` with merchant_id, sub_merchant_id,
 * status, network and created_at columns. Values are bound through `bind` (which appends to the
 * query's parameters and returns the placeholder), never interpolated.
 */
export function commonListConditions(
  alias: string,
  filter: CommonListFilter,
  bind: (value: unknown) => string,
): string[] {
  const where = [`${alias}.merchant_id = ${bind(filter.merchantId)}`];
  if (filter.scope.kind === 'own') where.push(`${alias}.sub_merchant_id IS NULL`);
  if (filter.scope.kind === 'one') {
    where.push(`${alias}.sub_merchant_id = ${bind(filter.scope.subMerchantId)}`);
  }
  if (filter.statuses?.length)
    where.push(`${alias}.status = ANY(${bind(filter.statuses)}::text[])`);
  if (filter.network) where.push(`${alias}.network = ${bind(filter.network)}`);
  if (filter.createdAfter) where.push(`${alias}.created_at > ${bind(filter.createdAfter)}`);
  if (filter.createdBefore) where.push(`${alias}.created_at < ${bind(filter.createdBefore)}`);
  return where;
}

/** Anything that runs SQL with bound parameters (TypeORM's DataSource). */
export interface SqlRunner {
  query(sql: string, parameters: unknown[]): Promise<unknown>;
}

export interface PageQuery {
  /** SELECT list and FROM clause of the page (may join); `countFrom` is the bare table and alias. */
  select: string;
  from: string;
  countFrom: string;
  /** The list's order key, alias included; newest first. */
  alias: string;
  where: string[];
  params: unknown[];
  limit: number;
  offset: number;
}

/** One page, newest first (created_at DESC, id DESC), and the total count of the filtered set. */
export async function queryPageWithTotal<T>(
  runner: SqlRunner,
  page: PageQuery,
): Promise<{ rows: T[]; total: number }> {
  const condition = page.where.join(' AND ');
  const n = page.params.length;
  const [rows, counted] = (await Promise.all([
    runner.query(
      `SELECT ${page.select} FROM ${page.from} WHERE ${condition}
        ORDER BY ${page.alias}.created_at DESC, ${page.alias}.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...page.params, page.limit, page.offset],
    ),
    runner.query(`SELECT count(*) AS total FROM ${page.countFrom} WHERE ${condition}`, page.params),
  ])) as [T[], Array<{ total: string }>];
  return { rows, total: Number(counted[0].total) };
}
