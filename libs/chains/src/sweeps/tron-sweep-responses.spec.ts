import { TronResponseError } from '../adapters/tron/tron-errors';
import {
  parseAccount,
  parseAccountResources,
  parseChainParameter,
  parseDelegatedEnergy,
  parseEnergyUsed,
  parseMinedTransaction,
} from './tron-sweep-responses';

const ID = 'ab'.repeat(32);
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

describe('TRON sweep responses', () => {
  it('reads a mined transaction: outcome and costs, null while no block has it', () => {
    expect(parseMinedTransaction({}, ID)).toBeNull();
    expect(
      parseMinedTransaction(
        {
          id: ID,
          fee: 2_100_000,
          blockNumber: 9,
          result: 'FAILED',
          receipt: {
            energy_fee: 2_100_000,
            energy_usage_total: 10_000,
            net_usage: 345,
            result: 'OUT_OF_ENERGY',
          },
        },
        ID,
      ),
    ).toEqual({
      blockNumber: 9,
      succeeded: false,
      contractResult: 'OUT_OF_ENERGY',
      feeSun: 2_100_000n,
      energyUsage: 0n,
      energyFeeSun: 2_100_000n,
      energyUsageTotal: 10_000n,
      netUsage: 345n,
      netFeeSun: 0n,
    });
    expect(parseMinedTransaction({ id: ID, blockNumber: 3, receipt: {} }, ID)).toMatchObject({
      succeeded: true,
      contractResult: null,
      feeSun: 0n,
    });
    expect(() => parseMinedTransaction({ id: 'cd'.repeat(32), blockNumber: 3 }, ID)).toThrow(
      'another transaction',
    );
    expect(() => parseMinedTransaction({ Error: 'class java.lang.Exception : busy' }, ID)).toThrow(
      TronResponseError,
    );
  });

  it('reads a chain parameter by key; a value left out is 0, a missing key an error', () => {
    const parameters = {
      chainParameter: [{ key: 'getEnergyFee', value: 210 }, { key: 'getAllowTvmFreeze' }],
    };
    expect(parseChainParameter(parameters, 'getEnergyFee')).toBe(210n);
    expect(parseChainParameter(parameters, 'getAllowTvmFreeze')).toBe(0n);
    expect(() => parseChainParameter(parameters, 'getTransactionFee')).toThrow(
      'without getTransactionFee',
    );
    expect(() => parseChainParameter({}, 'getEnergyFee')).toThrow('without chainParameter');
  });

  it('reads an address that is no account ({}) as not activated', () => {
    expect(parseAccount({})).toEqual({ activated: false, balanceSun: 0n });
    expect(parseAccount({ address: '41' + '00'.repeat(20) })).toEqual({
      activated: true,
      balanceSun: 0n,
    });
    expect(parseAccount({ address: 'x', balance: 5 })).toEqual({ activated: true, balanceSun: 5n });
  });

  it('reads what is left of energy and bandwidth, never below 0', () => {
    expect(parseAccountResources({})).toEqual({
      energyAvailable: 0n,
      freeBandwidthAvailable: 0n,
      stakedBandwidthAvailable: 0n,
    });
    expect(
      parseAccountResources({
        freeNetLimit: 600,
        freeNetUsed: 345,
        NetLimit: 100,
        NetUsed: 150,
        EnergyLimit: 70_000,
        EnergyUsed: 64_285,
      }),
    ).toEqual({
      energyAvailable: 5_715n,
      freeBandwidthAvailable: 255n,
      stakedBandwidthAvailable: 0n,
    });
  });

  it('sums the stake lent for energy', () => {
    expect(parseDelegatedEnergy({})).toBe(0n);
    expect(
      parseDelegatedEnergy({
        delegatedResource: [{ from: 'a', to: 'b', frozen_balance_for_energy: 6_429_000_000 }],
      }),
    ).toBe(6_429_000_000n);
  });

  it('reads the energy of a simulated transfer; a refused or failing one cannot be estimated', () => {
    expect(parseEnergyUsed({ result: { result: true }, energy_used: 64_285 })).toBe(64_285n);
    expect(() =>
      parseEnergyUsed({
        result: { result: true, message: hex('REVERT opcode executed') },
        energy_used: 1_000,
        transaction: { ret: [{ ret: 'FAILED' }] },
      }),
    ).toThrow('the transfer fails (REVERT opcode executed)');
    expect(() =>
      parseEnergyUsed({
        result: { code: 'CONTRACT_VALIDATE_ERROR', message: hex('Smart contract is not exist.') },
      }),
    ).toThrow('CONTRACT_VALIDATE_ERROR Smart contract is not exist.');
    expect(() => parseEnergyUsed({ result: { result: true } })).toThrow('without energy_used');
  });
});
