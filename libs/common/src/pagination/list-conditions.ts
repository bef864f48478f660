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
 * The tenancy condition. One sub-merchant's records are those of a sub-merchant this merchant
 * owns, checked in the same statement; written as `merchant_id = $1 AND sub_merchant_id = $2`
 * instead, the planner would multiply the two selectivities (it cannot know that the second
 * implies the first), expect a handful of rows and sort them all rather than walk the index.
 */
function ownerCondition(
  alias: string,
  filter: CommonListFilter,
  bind: (value: unknown) => string,
): string {
  const merchant = bind(filter.merchantId);
  if (filter.scope.kind !== 'one') return `${alias}.merchant_id = ${merchant}`;
  const subMerchant = bind(filter.scope.subMerchantId);
  return `${alias}.sub_merchant_id = (SELECT owned.id FROM sub_merchants owned
            WHERE owned.id = ${subMerchant} AND owned.merchant_id = ${merchant})`;
}

/** The conditions of a list: all of `where`, and one of `anyOf` when it is not empty. */
export interface ListConditions {
  where: string[];
  anyOf: string[];
}

/**
 * Conditions of a list over a table aliased `alias` with merchant_id, sub_merchant_id, status,
 * network and created_at columns. Values are bound through `bind` (which appends to the query's
 * parameters and returns the placeholder), never interpolated. Every condition is an equality or
 * a range an index of the table starts with, so that the first page is an index range scan:
 * one status is `status = $n`; several are alternatives (`anyOf`), one index range each.
 */
export function commonListConditions(
  alias: string,
  filter: CommonListFilter,
  bind: (value: unknown) => string,
): ListConditions {
  const where = [ownerCondition(alias, filter, bind)];
  if (filter.scope.kind === 'own') where.push(`${alias}.sub_merchant_id IS NULL`);
  const statuses = [...new Set(filter.statuses ?? [])];
  const anyOf = statuses.map((status) => `${alias}.status = ${bind(status)}`);
  if (anyOf.length === 1) where.push(...anyOf.splice(0));
  if (filter.network) where.push(`${alias}.network = ${bind(filter.network)}`);
  if (filter.createdAfter) where.push(`${alias}.created_at > ${bind(filter.createdAfter)}`);
  if (filter.createdBefore) where.push(`${alias}.created_at < ${bind(filter.createdBefore)}`);
  return { where, anyOf };
}

// Re-exported here, so that @app/common (index.ts) exports them through this file.
export type { SqlRunner } from './sql-runner';
export { TOTAL_COUNT_CAP } from './total-count-cap';
export * from './list-query';
