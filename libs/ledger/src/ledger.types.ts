import Decimal from 'decimal.js';

/** One side of an entry. Signed: debits positive, credits negative. */
export interface LedgerLine {
  account: string;
  amount: Decimal;
  currency: string;
  network: string;
  /** Set on merchant balance accounts so balances group without parsing account names. */
  merchantId?: string;
  subMerchantId?: string | null;
}

export interface LedgerEntry {
  /** Unique business reference: posting the same reference twice is a no-op (exactly once). */
  reference: string;
  kind: string;
  lines: LedgerLine[];
}

export interface MerchantBalance {
  merchantId: string;
  subMerchantId: string | null;
  currency: string;
  network: string;
  /** What the merchant may pay out now: the negated balance of its account. */
  available: Decimal;
  /** Reserved for payouts in flight. */
  held: Decimal;
}
