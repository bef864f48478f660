/** What moved a merchant's balance, as GET /v1/balance-transactions names it. */
export const BALANCE_TRANSACTION_TYPES = [
  'payment',
  'payment_reversal',
  'payout',
  'payout_release',
  'refund',
  'refund_release',
  'fee',
  'adjustment',
] as const;

export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/**
 * The ledger entry kinds (ledger_entries.kind) behind each type. An entry of a kind not listed
 * here that moves a merchant's balance is an `adjustment`: the statement shows every movement,
 * even of a posting added after this list.
 */
export const KINDS_OF_TYPE: Record<Exclude<BalanceTransactionType, 'adjustment'>, string[]> = {
  payment: ['deposit'],
  payment_reversal: ['deposit_reversal'],
  payout: ['payout_hold'],
  payout_release: ['payout_release'],
  refund: ['refund_hold'],
  refund_release: ['refund_release'],
  fee: ['merchant_fee'],
};

const KNOWN_KINDS = Object.values(KINDS_OF_TYPE).flat();

/** The type of an entry kind. */
export function typeOfKind(kind: string): BalanceTransactionType {
  for (const [type, kinds] of Object.entries(KINDS_OF_TYPE)) {
    if (kinds.includes(kind)) return type as BalanceTransactionType;
  }
  return 'adjustment';
}

/**
 * A condition on a kind column for the given types, its values bound through `bind`:
 * `kind = ANY(...)` for the known ones, `kind <> ALL(...)` for adjustments.
 */
export function kindCondition(
  column: string,
  types: BalanceTransactionType[],
  bind: (value: unknown) => string,
): string {
  const kinds = types.flatMap((type) => (type === 'adjustment' ? [] : KINDS_OF_TYPE[type]));
  const alternatives: string[] = [];
  if (kinds.length) alternatives.push(`${column} = ANY(${bind(kinds)}::text[])`);
  if (types.includes('adjustment'))
    alternatives.push(`${column} <> ALL(${bind(KNOWN_KINDS)}::text[])`);
  return alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(' OR ')})`;
}
