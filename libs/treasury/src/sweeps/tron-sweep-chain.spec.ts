import type { TronNodePayoutTransport } from '@app/chains';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { stakeForEnergy, TronSweepChain } from './tron-sweep-chain';

const TRX = 1_000_000n;
const STAKING = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy';

/** A TronSweepChain whose node answers getaccount and getaccountresource as given. */
function chainAnswering(account: unknown, resources: unknown): TronSweepChain {
  const chain = new TronSweepChain(
    TESTNET_NETWORKS.TRON,
    {} as TronNodePayoutTransport,
    undefined,
    [],
  );
  const answers: Record<string, unknown> = {
    'wallet/getaccount': account,
    'wallet/getaccountresource': resources,
  };
  Object.assign(chain, {
    node: {
      request: async (path: string, _body: unknown, parse: (value: unknown) => unknown) =>
        parse(answers[path]),
    },
  });
  return chain;
}

describe('TRON staking state without the network totals (the node reports only the account)', () => {
  // java-tron moves a loan out of frozenV2: 1,000,000 TRX staked of which 100,000 lent shows as
  // frozenV2 900,000 and delegated 100,000; the energy limit counts the 900,000 (10 a TRX).
  const lending = chainAnswering(
    {
      frozenV2: [{}, { type: 'ENERGY', amount: Number(900_000n * TRX) }, { type: 'TRON_POWER' }],
      account_resource: { delegated_frozenV2_balance_for_energy: Number(100_000n * TRX) },
    },
    { EnergyLimit: 9_000_000, EnergyUsed: 20_000 },
  );

  it('counts energy per stake on the stake not lent, once', async () => {
    const { ratio } = await lending.stakingState(STAKING);
    // 70,714 energy at 10 a TRX: 7,072 TRX lent gives 70,720 (the loans took off twice gave
    // 6,286 TRX, 62,860 energy: the sweep's transfer was never signed).
    expect(stakeForEnergy(70_714n, ratio)).toBe(7_072n * TRX);
  });

  it('may lend the stake not lent less what covers its own used energy', async () => {
    const { lendableSun } = await lending.stakingState(STAKING);
    expect(lendableSun).toBe((900_000n - 2_000n) * TRX);
  });
});
