import Decimal from 'decimal.js';
import { LedgerAccounts, LedgerEntry, LedgerLine } from '@app/ledger';

/** The parts of a refund its ledger entries need. */
export interface RefundFunds {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  session_id: string | null;
  unmatched_transfer_id: string | null;
  currency: string;
  network: string;
  amount: string;
}

function merchantLine(refund: RefundFunds, held: boolean, amount: Decimal): LedgerLine {
  const account = held ? LedgerAccounts.merchantHeld : LedgerAccounts.merchant;
  return {
    account: account(refund.merchant_id, refund.sub_merchant_id, refund.network, refund.currency),
    amount,
    currency: refund.currency,
    network: refund.network,
    merchantId: refund.merchant_id,
    subMerchantId: refund.sub_merchant_id,
  };
}

function unmatchedLine(refund: RefundFunds, amount: Decimal): LedgerLine {
  return {
    account: LedgerAccounts.unmatched(refund.network, refund.currency),
    amount,
    currency: refund.currency,
    network: refund.network,
  };
}

/** Where the refund's money comes from: the merchant's available balance, or `unmatched`. */
function sourceLine(refund: RefundFunds, amount: Decimal): LedgerLine {
  return refund.unmatched_transfer_id === null
    ? merchantLine(refund, false, amount)
    : unmatchedLine(refund, amount);
}

/**
 * Created: the amount is held as a payout's is (`merchant_held`), from available for a session's
 * refund, from `unmatched` for an unmatched transfer's. The payout that sends it later completes
 * against that held amount (`payout:<id>:completed`) exactly like any payout.
 */
export function refundHoldEntry(refund: RefundFunds): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:hold`,
    kind: 'refund_hold',
    lines: [sourceLine(refund, amount), merchantLine(refund, true, amount.negated())],
  };
}

/** Canceled before anything was signed: the held amount goes back where it came from. */
export function refundReleaseEntry(refund: RefundFunds): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:release`,
    kind: 'refund_release',
    lines: [merchantLine(refund, true, amount), sourceLine(refund, amount.negated())],
  };
}

/**
 * An unmatched transfer's refund whose payout failed or was rejected: the payout's release
 * (`payout:<id>:release`) put the amount into the merchant's available balance, as for any payout;
 * this entry, in the same transaction, moves it back to `unmatched`, where it was never the
 * merchant's.
 */
export function refundReturnToUnmatchedEntry(refund: RefundFunds): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:return_unmatched`,
    kind: 'refund_release',
    lines: [merchantLine(refund, false, amount), unmatchedLine(refund, amount.negated())],
  };
}
