import { SweepAttemptRow } from './sweep-journal.repository';

/**
 * The deposit address's transfer that goes with a top-up version. A top-up replaced under the
 * cap has its transfer (never sent before a top-up is mined) signed again at the same new fees,
 * and its value raised to pay them: each top-up version carries the gas of the transfer signed
 * at its own max fee. Whichever version the chain mines, the address can pay only that one.
 * Older sweeps (one transfer for every version): that transfer.
 */
export function pairedTransfer<T extends SweepAttemptRow>(attempts: readonly T[], topUp?: T): T {
  const transfers = attempts.filter(
    (attempt) => attempt.step === 'transfer' && attempt.status !== 'Superseded',
  );
  const paired =
    topUp &&
    transfers.find(
      (transfer) => BigInt(transfer.max_fee_per_gas) === BigInt(topUp.max_fee_per_gas),
    );
  const chosen = paired ?? transfers[transfers.length - 1];
  if (!chosen) throw new Error(`Sweep ${attempts[0]?.sweep_id}: no transfer left to send`);
  return chosen;
}
