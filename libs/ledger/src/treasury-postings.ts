import Decimal from 'decimal.js';
import { LedgerAccounts } from './accounts';
import { LedgerEntry, ReceiptBlock } from './ledger.types';

// Postings of the service's own money (docs/treasury.md, "Posting rules"). Pure functions, here
// rather than in libs/treasury: payouts, sweeps, the deposit watcher and the treasury CLI all post
// them, and the ledger is the one library every one of them may import.

/** A coin or token as the ledger books it: its symbol and the decimals of its base unit. */
export interface BookedAsset {
  symbol: string;
  decimals: number;
}

/** The asset accounts that can hold native coin or tokens and so pay a fee or receive funding. */
export type HoldingAccount = 'hot_wallet' | 'sweeper' | 'staking' | 'treasury';

/** The asset accounts of a (network, currency): what reconciliation compares with the chain. */
export const ASSET_ACCOUNT_KINDS = ['deposits', 'hot_wallet', 'treasury', 'sweeper', 'staking'];

const HOLDING_ACCOUNTS: Record<HoldingAccount, (network: string, currency: string) => string> = {
  hot_wallet: LedgerAccounts.hotWallet,
  sweeper: LedgerAccounts.sweeper,
  staking: LedgerAccounts.staking,
  treasury: LedgerAccounts.treasury,
};

/**
 * Base units as a whole-unit Decimal, exactly: built from the digits and an exponent, which the
 * Decimal constructor takes as is (a division would round to the configured precision).
 */
export function fromBaseUnits(baseUnits: bigint, decimals: number): Decimal {
  if (!Number.isInteger(decimals) || decimals < 0) throw new Error(`Invalid decimals ${decimals}.`);
  return new Decimal(`${baseUnits.toString()}e-${decimals}`);
}

/**
 * The fee a mined transaction of ours paid, from its receipt: an expense, out of the account of
 * the key that paid it. Once per transaction (its hash is the reference), whatever else the
 * transaction did; a zero fee writes nothing. The receipt (and its block, when the caller has
 * it) is recorded with the entry, so the fee is checked again once final (feeEntry).
 */
export function networkFeeEntry(input: {
  network: string;
  txHash: string;
  feeBaseUnits: bigint;
  payer: HoldingAccount;
  coin: BookedAsset;
  block?: ReceiptBlock | null;
  succeeded?: boolean | null;
}): LedgerEntry {
  return feeEntry({
    ...input,
    payerAccount: HOLDING_ACCOUNTS[input.payer](input.network, input.coin.symbol),
  });
}

/**
 * Every network fee's entry (networkFeeEntry, and a deposit address's own fees): reference
 * `network_fee:N:hash`, debit `network_fees:N:COIN`, credit `payerAccount`, with its receipt.
 */
export function feeEntry(input: {
  network: string;
  txHash: string;
  feeBaseUnits: bigint;
  payerAccount: string;
  coin: BookedAsset;
  block?: ReceiptBlock | null;
  succeeded?: boolean | null;
}): LedgerEntry {
  const { network, coin, txHash, feeBaseUnits } = input;
  if (feeBaseUnits < 0n) throw new Error(`Negative network fee ${feeBaseUnits}.`);
  const fee = fromBaseUnits(feeBaseUnits, coin.decimals);
  const line = { currency: coin.symbol, network };
  return {
    reference: `network_fee:${network}:${txHash}`,
    kind: 'network_fee',
    lines: [
      { account: LedgerAccounts.networkFees(network, coin.symbol), amount: fee, ...line },
      { account: input.payerAccount, amount: fee.negated(), ...line },
    ],
    feeReceipt: {
      network,
      txHash,
      feeBaseUnits,
      block: input.block ?? null,
      succeeded: input.succeeded ?? null,
    },
  };
}

/**
 * Money the operator moved between the outside and an address we control, booked from the
 * transaction: into `account` (`amount` > 0, funding) or out of it (`amount` < 0, a withdrawal),
 * against the operator's equity. `position` is the token Transfer's log index or `native`.
 */
export function fundingEntry(input: {
  network: string;
  txHash: string;
  position: number | 'native';
  account: HoldingAccount;
  currency: string;
  amount: Decimal;
}): LedgerEntry {
  const { network, currency, amount } = input;
  const line = { currency, network };
  return {
    reference: `funding:${network}:${input.txHash}:${input.position}`,
    kind: amount.isNegative() ? 'owner_withdrawal' : 'owner_funding',
    lines: [
      { account: HOLDING_ACCOUNTS[input.account](network, currency), amount, ...line },
      {
        account: LedgerAccounts.ownerFunding(network, currency),
        amount: amount.negated(),
        ...line,
      },
    ],
  };
}

/**
 * Money moved between two of our wallets by an operator's transaction (a treasury refill of the
 * hot wallet, the sweeper's coin moved to the hot wallet): out of `from`, into `to`, nothing
 * earned or spent. Same reference space as funding: one movement is booked once, whichever way.
 */
export function internalTransferEntry(input: {
  network: string;
  txHash: string;
  position: number | 'native';
  from: HoldingAccount;
  to: HoldingAccount;
  currency: string;
  amount: Decimal;
}): LedgerEntry {
  const { network, currency, amount } = input;
  if (!amount.isPositive()) throw new Error(`Internal transfer of ${amount.toFixed()}.`);
  const line = { currency, network };
  return {
    reference: `funding:${network}:${input.txHash}:${input.position}`,
    kind: 'internal_transfer',
    lines: [
      { account: HOLDING_ACCOUNTS[input.to](network, currency), amount, ...line },
      {
        account: HOLDING_ACCOUNTS[input.from](network, currency),
        amount: amount.negated(),
        ...line,
      },
    ],
  };
}

/**
 * An unmatched transfer on one of our deposit addresses (booked once its block is confirmed), or
 * its reversal when a reorg took it away. `booking` numbers the bookings of this transfer: a
 * transfer reverted and mined again is booked again under a new reference.
 */
export function unmatchedTransferEntry(input: {
  id: string;
  network: string;
  currency: string;
  amount: Decimal;
  booking: number;
  reversal: boolean;
}): LedgerEntry {
  const { network, currency } = input;
  const amount = input.reversal ? input.amount.negated() : input.amount;
  const line = { currency, network };
  return {
    reference: `unmatched_transfer:${input.id}:${input.reversal ? 'reversed' : 'booked'}:${input.booking}`,
    kind: input.reversal ? 'unmatched_transfer_reversal' : 'unmatched_transfer',
    lines: [
      { account: LedgerAccounts.deposits(network, currency), amount, ...line },
      { account: LedgerAccounts.unmatched(network, currency), amount: amount.negated(), ...line },
    ],
  };
}
