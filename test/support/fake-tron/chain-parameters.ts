/**
 * TEST DOUBLE: the chain parameters the fake TRON node charges with and serves from
 * /wallet/getchainparameters, in java-tron's names (ProposalUtil / DynamicPropertiesStore).
 * Defaults are mainnet-like; a test changes one with FakeTronNode.setChainParameter, as a passed
 * proposal would, and the next block charges the new value.
 *
 * Sources: developers.tron.network/docs/resource-model (bandwidth and energy prices),
 * tronprotocol documentation-en "overview" (CREATE_ACCOUNT_FEE 100_000 sun, TRANSACTION_FEE
 * 1_000 sun/byte, CREATE_NEW_ACCOUNT_FEE_IN_SYSTEM_CONTRACT 1_000_000 sun), wallet-cli "account"
 * (creating an account burns getCreateNewAccountFeeInSystemContract, and its bandwidth comes from
 * staked bandwidth only, else getCreateAccountFee is burnt).
 */
export interface FakeChainParameters {
  /** Sun burnt per unit of energy a contract call uses beyond the caller's own energy. */
  getEnergyFee: number;
  /** Sun burnt per byte of a transaction paid neither by staked nor by free bandwidth. */
  getTransactionFee: number;
  /** Sun burnt for the bandwidth of a transaction that creates an account (no staked bandwidth). */
  getCreateAccountFee: number;
  /** Sun burnt by AccountCreateContract, or a TRX transfer, creating an account. */
  getCreateNewAccountFeeInSystemContract: number;
  /** Free bandwidth (bytes) per activated account per 24 h. */
  getFreeNetLimit: number;
  /** The highest fee_limit a contract call may carry (15,000 TRX). */
  getMaxFeeLimit: number;
}

export const DEFAULT_CHAIN_PARAMETERS: FakeChainParameters = {
  getEnergyFee: 210,
  getTransactionFee: 1_000,
  getCreateAccountFee: 100_000,
  getCreateNewAccountFeeInSystemContract: 1_000_000,
  getFreeNetLimit: 600,
  getMaxFeeLimit: 15_000_000_000,
};

export type FakeChainParameterName = keyof FakeChainParameters;

/**
 * The parameters and their history: getenergyprices and getbandwidthprices answer every price
 * since genesis as "timestamp:price,..." (java-tron keeps that history the same way).
 */
export class FakeChainParameterStore {
  readonly values: FakeChainParameters;
  private readonly energyPrices: Array<[number, number]> = [];
  private readonly bandwidthPrices: Array<[number, number]> = [];

  constructor(initial: Partial<FakeChainParameters> = {}) {
    this.values = { ...DEFAULT_CHAIN_PARAMETERS, ...initial };
    this.energyPrices.push([0, this.values.getEnergyFee]);
    this.bandwidthPrices.push([0, this.values.getTransactionFee]);
  }

  set(name: FakeChainParameterName, value: number, since: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`bad ${name}: ${value}`);
    this.values[name] = value;
    if (name === 'getEnergyFee') this.energyPrices.push([since, value]);
    if (name === 'getTransactionFee') this.bandwidthPrices.push([since, value]);
  }

  /** GetChainParametersServlet: {"chainParameter": [{"key", "value"}]}, a zero value left out. */
  chainParametersJson(): { chainParameter: Array<{ key: string; value?: number }> } {
    return {
      chainParameter: Object.entries(this.values).map(([key, value]: [string, number]) =>
        value === 0 ? { key } : { key, value },
      ),
    };
  }

  energyPricesJson(): { prices: string } {
    return { prices: this.energyPrices.map(([at, price]) => `${at}:${price}`).join(',') };
  }

  bandwidthPricesJson(): { prices: string } {
    return { prices: this.bandwidthPrices.map(([at, price]) => `${at}:${price}`).join(',') };
  }
}
