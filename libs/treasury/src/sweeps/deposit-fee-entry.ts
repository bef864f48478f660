import { BookedAsset, feeEntry, LedgerAccounts, LedgerEntry, ReceiptBlock } from '@app/ledger';

/**
 * The fee a deposit address paid for a transaction it signed itself, out of the native coin the
 * books hold on deposit addresses (`deposits:N:COIN`): an EVM gas top-up's transfer, or a TRON
 * transfer that burnt TRX someone sent the address. Same reference as every fee of ours.
 */
export function depositFeeEntry(input: {
  network: string;
  txHash: string;
  feeBaseUnits: bigint;
  coin: BookedAsset;
  block?: ReceiptBlock | null;
  succeeded?: boolean | null;
}): LedgerEntry {
  return feeEntry({
    ...input,
    payerAccount: LedgerAccounts.deposits(input.network, input.coin.symbol),
  });
}
