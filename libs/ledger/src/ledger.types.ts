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
  /**
   * A network fee's: the receipt it was read from, recorded with the entry (network_fee_receipts)
   * so the fee is checked again once final (docs/treasury.md, "Fees become final").
   */
  feeReceipt?: FeeReceipt;
}

/** Where a booked fee came from: the transaction, its fee and, when the booker knows it, its block. */
export interface FeeReceipt {
  network: string;
  txHash: string;
  feeBaseUnits: bigint;
  block: ReceiptBlock | null;
  /** The receipt's status, when the booker knows it: a reorg that flips it is left to an operator. */
  succeeded: boolean | null;
}

/** The block a receipt was read from. */
export interface ReceiptBlock {
  number: number;
  hash: string;
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
