import { checkedTransactionId, tronError } from '../adapters/tron/tron-chain-reads';
import { TronNodeClient } from '../adapters/tron/tron-node-client';
import { NetworkConfig } from '../networks/network.types';
import { parseTimedBlock, parseUint256Result } from '../payouts/tron-payout-responses';
import { TronSweepChecks } from './tron-sweep-checks';
import {
  parseAccount,
  parseAccountResources,
  parseChainParameter,
  parseDelegatedEnergy,
  parseMinedTransaction,
  TronMinedTransaction,
} from './tron-sweep-responses';
import { abiEncode, BALANCE_OF_SIGNATURE } from './tron-trc20-calls';

/** What an address is on chain now, for deciding the sweep's steps. */
export interface TronAccountState {
  /** An account exists (activated): only then may it sign, or receive delegated energy. */
  activated: boolean;
  balanceSun: bigint;
  /** Energy left now: its own stake's and what others delegated to it, less what it used. */
  energyAvailable: bigint;
  /** Free bandwidth left today (600 bytes a day per account on mainnet). */
  freeBandwidthAvailable: bigint;
  /** Free and staked (or delegated) bandwidth left. */
  bandwidthAvailable: bigint;
}

/** Solidity-API balance reads in flight at once (TRON has no Multicall). */
const SOLID_READS_IN_FLIGHT = 8;

/**
 * The reads of a sweep through TronNodeClient: the chain's prices, an address's account and
 * resources, delegated energy, token balances (head and solid) and a mined transaction's outcome.
 */
export class TronSweepReads {
  constructor(
    private readonly network: NetworkConfig,
    private readonly node: TronNodeClient,
    private readonly checks: TronSweepChecks,
  ) {}

  /** Sun burnt per unit of energy, as the chain charges it now (getEnergyFee). */
  async energyPrice(): Promise<bigint> {
    return this.chainParameter('getEnergyFee');
  }

  /** Sun burnt per byte of bandwidth (getTransactionFee). */
  async bandwidthPrice(): Promise<bigint> {
    return this.chainParameter('getTransactionFee');
  }

  async accountState(address: string): Promise<TronAccountState> {
    const hex = this.checks.hexAddress(address, 'address');
    const [account, resources] = await Promise.all([
      this.node.request('wallet/getaccount', { address: hex, visible: false }, parseAccount),
      this.node.request(
        'wallet/getaccountresource',
        { address: hex, visible: false },
        parseAccountResources,
      ),
    ]);
    return {
      ...account,
      energyAvailable: resources.energyAvailable,
      freeBandwidthAvailable: resources.freeBandwidthAvailable,
      bandwidthAvailable: resources.freeBandwidthAvailable + resources.stakedBandwidthAvailable,
    };
  }

  /** Sun of stake `from` lends `to` for energy now. */
  async delegatedEnergy(from: string, to: string): Promise<bigint> {
    return this.node.request(
      'wallet/getdelegatedresourcev2',
      {
        fromAddress: this.checks.hexAddress(from, 'from'),
        toAddress: this.checks.hexAddress(to, 'to'),
        visible: false,
      },
      parseDelegatedEnergy,
    );
  }

  async tokenBalance(address: string, token: string): Promise<bigint> {
    const owner = this.checks.hexAddress(address, 'address');
    return this.node.request(
      'wallet/triggerconstantcontract',
      {
        owner_address: owner,
        contract_address: this.checks.hexAddress(token, 'token'),
        function_selector: BALANCE_OF_SIGNATURE,
        parameter: abiEncode(['address'], [owner]),
        visible: false,
      },
      parseUint256Result,
    );
  }

  /**
   * Balances of `token` from the solidity API (the state of an irreversible block), every read
   * from the one URL that answered the solid head, between two reads of that head. A backend
   * behind the URL still catching up answers an older solid head after than before: the caller
   * then trusts none of the balances.
   */
  async solidTokenBalances(
    addresses: string[],
    token: string,
  ): Promise<{ solidBefore: number; solidAfter: number; balances: bigint[] }> {
    const tokenHex = this.checks.hexAddress(token, 'token');
    const owners = addresses.map((address) => this.checks.hexAddress(address, 'address'));
    const before = await this.node.requestWithSource(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
    );
    if (!before.value) {
      throw tronError(
        'transient',
        'walletsolidity/getnowblock returned no block',
        this.network.name,
      );
    }
    const balances: bigint[] = [];
    for (let start = 0; start < owners.length; start += SOLID_READS_IN_FLIGHT) {
      const batch = owners.slice(start, start + SOLID_READS_IN_FLIGHT);
      balances.push(
        ...(await Promise.all(
          batch.map((owner) =>
            this.node.request(
              'walletsolidity/triggerconstantcontract',
              {
                owner_address: owner,
                contract_address: tokenHex,
                function_selector: BALANCE_OF_SIGNATURE,
                parameter: abiEncode(['address'], [owner]),
                visible: false,
              },
              parseUint256Result,
              before.source,
            ),
          ),
        )),
      );
    }
    const after = await this.node.request(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
      before.source,
    );
    return {
      solidBefore: before.value.number,
      solidAfter: after?.number ?? -1,
      balances,
    };
  }

  /** The mined transaction's outcome and costs (`fee`: sun burnt), or null while no block has it. */
  async transactionInfo(txHash: string): Promise<TronMinedTransaction | null> {
    const id = checkedTransactionId(txHash, this.network.name);
    return this.node.request('wallet/gettransactioninfobyid', { value: id }, (value) =>
      parseMinedTransaction(value, id),
    );
  }

  private async chainParameter(key: string): Promise<bigint> {
    return this.node.request('wallet/getchainparameters', {}, (value) =>
      parseChainParameter(value, key),
    );
  }
}
