import { lentByJournal, stakeOf } from './tron-sweep-lent';

/** A stored step as tronweb builds it (only the fields the amount is read from). */
function step(
  kind: 'delegate' | 'undelegate' | 'transfer',
  status: 'Signed' | 'Broadcast' | 'Expired' | 'Mined',
  balance: number,
  txHash = `${kind}-${balance}-${status}`,
) {
  const type = kind === 'delegate' ? 'DelegateResourceContract' : 'UnDelegateResourceContract';
  const rawData = {
    contract: [
      {
        parameter: { value: { balance, resource: 'ENERGY' }, type_url: `protocol.${type}` },
        type: kind === 'transfer' ? 'TriggerSmartContract' : type,
      },
    ],
  };
  return {
    step: kind,
    status,
    tx_hash: txHash,
    raw_transaction: JSON.stringify({ txID: txHash, raw_data: rawData }),
  };
}

describe('TRON: the stake a sweep still lends, from its journal', () => {
  const allSucceeded = () => true;

  it('is the mined delegations less the mined take-backs, whatever a node reads now', () => {
    const steps = [step('delegate', 'Mined', 7_000_000), step('transfer', 'Mined', 0)];
    expect(lentByJournal(steps, allSucceeded)).toBe(7_000_000n);
    expect(lentByJournal([...steps, step('undelegate', 'Mined', 7_000_000)], allSucceeded)).toBe(
      0n,
    );
  });

  it('counts neither a delegation that failed on chain nor steps not mined', () => {
    const failed = step('delegate', 'Mined', 9_000_000, 'failed-delegation');
    const steps = [
      failed,
      step('delegate', 'Expired', 4_000_000),
      step('delegate', 'Mined', 3_000_000),
      step('undelegate', 'Broadcast', 3_000_000),
    ];
    expect(lentByJournal(steps, (s) => s.tx_hash !== failed.tx_hash)).toBe(3_000_000n);
  });

  it('refuses a stored transaction without a stake amount instead of guessing', () => {
    expect(() => stakeOf(step('transfer', 'Mined', 1))).toThrow('no stake amount');
  });
});
