import { TronStepRow } from './tron-sweep-journal.repository';

/** A journaled step's stake amount (sun): the `balance` of its Delegate/UnDelegateResourceContract. */
export function stakeOf(step: Pick<TronStepRow, 'raw_transaction' | 'tx_hash'>): bigint {
  const parsed = JSON.parse(step.raw_transaction) as {
    raw_data?: {
      contract?: Array<{ type?: string; parameter?: { value?: { balance?: unknown } } }>;
    };
  };
  const contract = parsed.raw_data?.contract?.[0];
  const balance = contract?.parameter?.value?.balance;
  if (
    (contract?.type !== 'DelegateResourceContract' &&
      contract?.type !== 'UnDelegateResourceContract') ||
    (typeof balance !== 'number' && typeof balance !== 'string') ||
    !/^\d+$/.test(String(balance))
  ) {
    throw new Error(`TRON sweep step ${step.tx_hash}: no stake amount in its stored transaction`);
  }
  return BigInt(balance);
}

/**
 * The stake a sweep still lends its address, from its own journal: what its mined, succeeded
 * delegations lent less what its mined, succeeded take-backs returned. Never from a read of the
 * delegation, which a lagging node may answer 0 or short, and the stake would stay lent for good.
 * `succeeded` tells each mined step's on-chain outcome (its solidified info).
 */
export function lentByJournal(
  steps: Array<Pick<TronStepRow, 'step' | 'status' | 'raw_transaction' | 'tx_hash'>>,
  succeeded: (step: Pick<TronStepRow, 'tx_hash'>) => boolean,
): bigint {
  let lent = 0n;
  for (const step of steps) {
    if (step.status !== 'Mined' || !succeeded(step)) continue;
    if (step.step === 'delegate') lent += stakeOf(step);
    if (step.step === 'undelegate') lent -= stakeOf(step);
  }
  return lent > 0n ? lent : 0n;
}
