import { AbiCoder } from 'ethers';
import { TronWeb } from 'tronweb';
import { NetworkConfig } from '@app/chains';
import { readHeadBlockNumber } from '@app/chains/adapters/tron/tron-chain-reads';
import { TronNodeClient } from '@app/chains/adapters/tron/tron-node-client';
import { parseAccountBalance, parseUint256Result } from '@app/chains/payouts/tron-payout-responses';
import { BalanceQuery, ChainBalanceReader, mapConcurrently } from './balance-reads';

// java-tron has no batch call: one request per balance, this many in flight (TronGrid's
// per-key limit is in the tens per second; a node of our own takes far more).
const PARALLEL_REQUESTS = 16;

/**
 * Balances from a java-tron full node: triggerconstantcontract balanceOf per token balance,
 * getaccount per TRX balance. Its HTTP API answers the current state only, so the block is the
 * head read before the balances.
 */
export class TronNodeBalances implements ChainBalanceReader {
  private readonly node: TronNodeClient;

  constructor(
    private readonly network: NetworkConfig,
    apiKey: string | undefined,
  ) {
    this.node = new TronNodeClient(network, { apiKey });
  }

  readBlock(): Promise<number> {
    return readHeadBlockNumber(this.node, this.network.name);
  }

  read(queries: BalanceQuery[]): Promise<bigint[]> {
    return mapConcurrently(queries, PARALLEL_REQUESTS, (query) => this.readOne(query));
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own.
  }

  private readOne({ address, token }: BalanceQuery): Promise<bigint> {
    const owner = TronWeb.address.toHex(address).toLowerCase();
    if (token === null) {
      return this.node.request(
        'wallet/getaccount',
        { address: owner, visible: false },
        parseAccountBalance,
      );
    }
    return this.node.request(
      'wallet/triggerconstantcontract',
      {
        owner_address: owner,
        contract_address: TronWeb.address.toHex(token).toLowerCase(),
        function_selector: 'balanceOf(address)',
        parameter: AbiCoder.defaultAbiCoder()
          .encode(['address'], [`0x${owner.slice(2)}`])
          .slice(2),
        visible: false,
      },
      parseUint256Result,
    );
  }
}
