import { BookedAsset, fromBaseUnits, LedgerAccounts, LedgerEntry } from '@app/ledger';

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
}): LedgerEntry {
  const { network, coin } = input;
  if (input.feeBaseUnits < 0n) throw new Error(`Negative network fee ${input.feeBaseUnits}.`);
  const fee = fromBaseUnits(input.feeBaseUnits, coin.decimals);
  const line = { currency: coin.symbol, network };
  return {
    reference: `network_fee:${network}:${input.txHash}`,
    kind: 'network_fee',
    lines: [
      { account: LedgerAccounts.networkFees(network, coin.symbol), amount: fee, ...line },
      { account: LedgerAccounts.deposits(network, coin.symbol), amount: fee.negated(), ...line },
    ],
  };
}
