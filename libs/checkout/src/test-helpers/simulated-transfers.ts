import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { LedgerAccounts, LedgerEntry } from '@app/ledger';

/**
 * Transaction hashes of simulated transfers start with this: no chain's hash does (EVM hashes are
 * `0x` + 64 hex, TRON's 64 hex), so one can never collide with a real transfer. The deposit
 * watcher's reorg and confirmation checks and chain resets leave them out by it. The sweep planner
 * and reconciliation do not: they only pick addresses to read and decide from the balances the
 * chain answers, so a simulated payment at most costs a read of an empty address.
 */
export const SIMULATED_TX_HASH_PREFIX = 'sim_';

/** SQL that keeps only real transfers of the table aliased `alias` (or unaliased). */
export function realTransfersOnly(alias?: string): string {
  return `${alias ? `${alias}.` : ''}tx_hash NOT LIKE '${SIMULATED_TX_HASH_PREFIX}%'`;
}

export function newSimulatedTxHash(): string {
  return SIMULATED_TX_HASH_PREFIX + randomBytes(30).toString('hex');
}

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
 * to `simulated:` in the same transaction (and `reverted` moves it back before the reversal), so
 * `deposits:` only ever holds what is on the chain. The merchant's balance is untouched by it.
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
