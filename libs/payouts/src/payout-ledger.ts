import Decimal from 'decimal.js';
import { LedgerAccounts, LedgerEntry } from '@app/ledger';

/** The parts of a payout its ledger entries need. */
export interface PayoutFunds {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  currency: string;
  network: string;
  amount: string;
  fee: string;
  net_amount: string;
}

function merchantLine(payout: PayoutFunds, held: boolean, amount: Decimal) {
  const account = held ? LedgerAccounts.merchantHeld : LedgerAccounts.merchant;
  return {
    account: account(payout.merchant_id, payout.sub_merchant_id, payout.network, payout.currency),
    amount,
    currency: payout.currency,
    network: payout.network,
    merchantId: payout.merchant_id,
    subMerchantId: payout.sub_merchant_id,
  };
}

/** Created: the amount moves from available to held. */
export function holdEntry(payout: PayoutFunds): LedgerEntry {
  const amount = new Decimal(payout.amount);
  return {
    reference: `payout:${payout.id}:hold`,
    kind: 'payout_hold',
    lines: [merchantLine(payout, false, amount), merchantLine(payout, true, amount.negated())],
  };
}

/** Failed or rejected: the held amount goes back to available. */
export function releaseEntry(payout: PayoutFunds): LedgerEntry {
  const amount = new Decimal(payout.amount);
  return {
    reference: `payout:${payout.id}:release`,
    kind: 'payout_release',
    lines: [merchantLine(payout, true, amount), merchantLine(payout, false, amount.negated())],
  };
}

/**
 * Completed: the held amount leaves for good, the net out of the hot wallet (where it was, until
 * the transfer) and the fee to revenue. The transaction's own network fee is booked apart, from
 * its receipt (networkFeeEntry).
 */
export function completionEntry(payout: PayoutFunds): LedgerEntry {
  const token = { currency: payout.currency, network: payout.network };
  return {
    reference: `payout:${payout.id}:completed`,
    kind: 'payout',
    lines: [
      merchantLine(payout, true, new Decimal(payout.amount)),
      {
        account: LedgerAccounts.hotWallet(payout.network, payout.currency),
        amount: new Decimal(payout.net_amount).negated(),
        ...token,
      },
      {
        account: LedgerAccounts.fees(payout.network, payout.currency),
        amount: new Decimal(payout.fee).negated(),
        ...token,
      },
    ],
  };
}
