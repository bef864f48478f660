import { parseOwnedTrx } from './tron-balances';

describe('parseOwnedTrx', () => {
  it('is the liquid balance of a plain account, and 0 for no account', () => {
    expect(parseOwnedTrx({ address: '41ab', balance: 5_000_000 })).toBe(5_000_000n);
    expect(parseOwnedTrx({})).toBe(0n);
  });

  it('counts what a staking account staked, lends and unstakes as its own', () => {
    const stakingAccount = {
      balance: 20_000_000,
      frozenV2: [
        { amount: 1_000_000_000 },
        { type: 'ENERGY', amount: 7_000_000_000 },
        { type: 'TRON_POWER' },
      ],
      unfrozenV2: [{ type: 'ENERGY', unfreeze_amount: 50_000_000, unfreeze_expire_time: 1 }],
      delegated_frozenV2_balance_for_bandwidth: 3_000_000,
      account_resource: {
        delegated_frozenV2_balance_for_energy: 2_000_000_000,
        energy_window_size: 28_800,
      },
    };
    expect(parseOwnedTrx(stakingAccount)).toBe(
      20_000_000n + 1_000_000_000n + 7_000_000_000n + 50_000_000n + 3_000_000n + 2_000_000_000n,
    );
  });

  it('refuses an amount that is no whole number of sun', () => {
    expect(() => parseOwnedTrx({ balance: '5' })).toThrow('balance');
    expect(() => parseOwnedTrx({ frozenV2: [{ amount: -1 }] })).toThrow('frozenV2');
    expect(() => parseOwnedTrx([])).toThrow('not an object');
  });
});
