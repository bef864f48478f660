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
