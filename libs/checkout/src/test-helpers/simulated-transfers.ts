import Decimal from 'decimal.js';
import { LedgerAccounts, LedgerEntry } from '@app/ledger';

// The hash prefix is shared with the payouts' simulator and the sweep planner (@app/common).
export { newSimulatedTxHash, realTransfersOnly, SIMULATED_TX_HASH_PREFIX } from '@app/common';

/**
 * Where simulated money sits in the books: an asset of its own, never `deposits:` (which
 * reconciliation compares with the chain). The name's kind, `simulated`, is none of the kinds
 * reconciliation or the treasury reads.
 */
export function simulatedAccount(network: string, currency: string): string {
  return `simulated:${network}:${currency}`;
}

/**
 * Settlement credits a confirmed transfer to `deposits:`; for a simulated one, this entry moves it
 * to `simulated:` in the same transaction (and `reverted` moves it back after the reversal), so
 * `deposits:` only ever holds what is on the chain once the transaction commits. The merchant's
 * balance is untouched by it. Posted after settlement's entry in both directions: `simulated:`
 * sorts after `deposits:`, `fees:` and `merchant:`, so the balance rows are locked in the
 * ledger's one order across the two statements (see SessionSimulatorService.reorg).
 */
export function simulatedDepositEntry(input: {
  transactionId: string;
  network: string;
  currency: string;
  amount: string;
  reverted: boolean;
}): LedgerEntry {
  const amount = new Decimal(input.amount);
  const sign = input.reverted ? -1 : 1;
  return {
    reference: `simulated_transfer:${input.transactionId}:${input.reverted ? 'reverted' : 'booked'}`,
    kind: input.reverted ? 'simulated_deposit_reversal' : 'simulated_deposit',
    lines: [
      {
        account: LedgerAccounts.deposits(input.network, input.currency),
        amount: amount.times(-sign),
        currency: input.currency,
        network: input.network,
      },
      {
        account: simulatedAccount(input.network, input.currency),
        amount: amount.times(sign),
        currency: input.currency,
        network: input.network,
      },
    ],
  };
}
