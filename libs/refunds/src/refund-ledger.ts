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

function serviceLine(account: string, refund: RefundFunds, amount: Decimal): LedgerLine {
  return { account, amount, currency: refund.currency, network: refund.network };
}

const unmatchedLine = (refund: RefundFunds, amount: Decimal) =>
  serviceLine(LedgerAccounts.unmatched(refund.network, refund.currency), refund, amount);
const refundHoldLine = (refund: RefundFunds, amount: Decimal) =>
  serviceLine(LedgerAccounts.refundHold(refund.network, refund.currency), refund, amount);

const ofUnmatched = (refund: RefundFunds) => refund.unmatched_transfer_id !== null;

/**
 * Where a refund's hold is: `merchant_held` for a session's; `refund_hold` for an unmatched
 * transfer's, unless the code before migration 1766320000000 held it in `merchant_held` and it was
 * not moved (RefundsRepository.holdAccountOf reads it from the refund's entries).
 */
export type HoldAccount = 'merchant_held' | 'refund_hold';

/** Where a refund being created is held. */
export const newHoldAccount = (refund: RefundFunds): HoldAccount =>
  ofUnmatched(refund) ? 'refund_hold' : 'merchant_held';

/** Where the refund's money comes from: the merchant's available balance, or `unmatched`. */
function sourceLine(refund: RefundFunds, amount: Decimal): LedgerLine {
  return ofUnmatched(refund) ? unmatchedLine(refund, amount) : merchantLine(refund, false, amount);
}

/** Where it is held until sent: the merchant's held balance, or `refund_hold` (not the merchant's). */
function heldLine(refund: RefundFunds, amount: Decimal, hold: HoldAccount): LedgerLine {
  return hold === 'refund_hold'
    ? refundHoldLine(refund, amount)
    : merchantLine(refund, true, amount);
}

/**
 * Created: a session's refund is held as a payout's is (available → `merchant_held`); an unmatched
 * transfer's moves from `unmatched` to `refund_hold`, so no merchant balance ever shows money that
 * was never the merchant's (review finding 8). The payout that sends it later completes against
 * `merchant_held` like any payout; for an unmatched transfer `refundHoldSettledEntry` (same
 * transaction) moves that amount from `refund_hold` back into `merchant_held`.
 */
export function refundHoldEntry(refund: RefundFunds): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:hold`,
    kind: 'refund_hold',
    lines: [sourceLine(refund, amount), heldLine(refund, amount.negated(), newHoldAccount(refund))],
  };
}

/**
 * Canceled before anything was signed: the held amount goes back where it came from, out of the
 * account it is held in (`hold`, read from the refund's entries for an unmatched transfer's).
 */
export function refundReleaseEntry(refund: RefundFunds, hold: HoldAccount): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:release`,
    kind: 'refund_release',
    lines: [heldLine(refund, amount, hold), sourceLine(refund, amount.negated())],
  };
}

/**
 * An unmatched transfer's refund has completed. Its payout's completion (`payout:<id>:completed`,
 * the payouts' own posting, earlier in the same transaction) took the amount out of
 * `merchant_held`, where this refund never put it; this entry puts it back there and takes it
 * from `refund_hold` instead. After the transaction the merchant's held balance is as it was.
 */
export function refundHoldSettledEntry(refund: RefundFunds): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:hold_settled`,
    kind: 'refund_hold_settled',
    lines: [refundHoldLine(refund, amount), merchantLine(refund, true, amount.negated())],
  };
}

/**
 * An unmatched transfer's refund whose payout failed or was rejected: the payout's release
 * (`payout:<id>:release`, same transaction) moved the amount from `merchant_held` to the
 * merchant's available balance, as for any payout; this entry undoes that for the merchant and
 * moves the amount from `refund_hold` back to `unmatched`, owed to the sender, or, when a reorg
 * took the transfer off the chain after the refund was signed (`lost`), to `refund_losses`, which
 * undoes the loss booked then: nothing left the service after all. A refund the code before
 * migration 1766320000000 held in `merchant_held` (`hold`) was never in `refund_hold`: the release
 * put it in the merchant's available balance, from which it goes back.
 */
export function refundReturnToUnmatchedEntry(
  refund: RefundFunds,
  lost: boolean,
  hold: HoldAccount,
): LedgerEntry {
  const amount = new Decimal(refund.amount);
  const back = lost ? lossLine(refund, amount.negated()) : unmatchedLine(refund, amount.negated());
  return {
    reference: `refund:${refund.id}:return_unmatched`,
    kind: 'refund_release',
    lines:
      hold === 'merchant_held'
        ? [merchantLine(refund, false, amount), back]
        : [
            merchantLine(refund, false, amount),
            merchantLine(refund, true, amount.negated()),
            refundHoldLine(refund, amount),
            back,
          ],
  };
}

/** The loss booked when a reorg reversed booking `booking` of the refunded transfer. */
export function reorgLossReference(refundId: string, booking: number): string {
  return `refund:${refundId}:reorg_loss:${booking}`;
}

const lossLine = (refund: RefundFunds, amount: Decimal) =>
  serviceLine(LedgerAccounts.refundLosses(refund.network, refund.currency), refund, amount);

/**
 * A reorg reversed booking `booking` of the unmatched transfer this refund, already signed, sends
 * back: the reversal (`unmatched_transfer:<id>:reversed:<n>`) gives `unmatched` the amount back
 * while the refund's hold still spends it. The money leaves (or left) the service with nothing to
 * cover it: a loss for an operator to review, never a debt of nobody in `unmatched`.
 */
export function refundReorgLossEntry(refund: RefundFunds, booking: number): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: reorgLossReference(refund.id, booking),
    kind: 'refund_reorg_loss',
    lines: [lossLine(refund, amount), unmatchedLine(refund, amount.negated())],
  };
}

/** The transfer was mined again (booking `booking`): the loss booked when it was reversed is undone. */
export function refundReorgRecoveredEntry(refund: RefundFunds, booking: number): LedgerEntry {
  const amount = new Decimal(refund.amount);
  return {
    reference: `refund:${refund.id}:reorg_recovered:${booking}`,
    kind: 'refund_reorg_recovered',
    lines: [unmatchedLine(refund, amount), lossLine(refund, amount.negated())],
  };
}
