import { getAddress, id, toQuantity } from 'ethers';
import { ChainError, NetworkConfig } from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { BalanceQuery, ChainBalanceReader, mapConcurrently } from './balance-reads';
import { decodeAggregate3, encodeAggregate3 } from './multicall3-codec';

/** Where Multicall3 lives on every EVM network (and on the devnet). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

const BALANCE_OF = id('balanceOf(address)').slice(0, 10);
const GET_ETH_BALANCE = id('getEthBalance(address)').slice(0, 10);

// Calls per eth_call: about 2.6k gas each, so 500 stay far below any node's eth_call gas cap
// (50M on geth by default) and below the answer size limits of hosted RPCs.
const CALLS_PER_BATCH = 500;
const PARALLEL_BATCHES = 8;

/**
 * Balances through Multicall3's aggregate3 at a numbered block: balanceOf on the token for a
 * token balance, Multicall3's own getEthBalance for native coin. One eth_call per 500 balances,
 * several in parallel; every call pinned to the same block, so they read one state of the chain
 * whatever backend of a load-balanced URL answers. A failed call fails the whole read: a balance
 * is never guessed.
 */
export class EvmMulticallBalances implements ChainBalanceReader {
  private readonly rpc: EvmRpc;

  constructor(private readonly network: NetworkConfig) {
    this.rpc = new EvmRpc(network);
  }

  async readBlock(confirmations: number): Promise<number> {
    const head = await this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
    return Math.max(head - confirmations + 1, 0);
  }

  async read(queries: BalanceQuery[], block: number): Promise<bigint[]> {
    const batches: BalanceQuery[][] = [];
    for (let start = 0; start < queries.length; start += CALLS_PER_BATCH) {
      batches.push(queries.slice(start, start + CALLS_PER_BATCH));
    }
    const answers = await mapConcurrently(batches, PARALLEL_BATCHES, (batch) =>
      this.readBatch(batch, block),
    );
    return answers.flat();
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  private async readBatch(batch: BalanceQuery[], block: number): Promise<bigint[]> {
    const calls = batch.map(({ address, token }) => {
      const owner = addressWord(address);
      return token === null
        ? { target: MULTICALL3, allowFailure: false, callData: `${GET_ETH_BALANCE}${owner}` }
        : {
            target: getAddress(token.toLowerCase()),
            allowFailure: false,
            callData: `${BALANCE_OF}${owner}`,
          };
    });
    const data = encodeAggregate3(calls);
    const answer = await this.rpc.call('eth_call', (provider) =>
      provider.send('eth_call', [{ to: MULTICALL3, data }, toQuantity(block)]),
    );
    if (answer === '0x') throw this.error(`no Multicall3 at ${MULTICALL3} at block ${block}`);
    let returned: ReturnType<typeof decodeAggregate3>;
    try {
      returned = decodeAggregate3(answer as string);
    } catch (error) {
      throw this.error(`Multicall3 answer: ${(error as Error).message}`);
    }
    if (returned.length !== batch.length) {
      throw this.error('Multicall3 answered another number of calls');
    }
    const balances = returned.map((result) => {
      // One uint256: 0x and 64 hex digits. Anything else is not a balance (no token there).
      if (!result.success || result.returnData.length !== 66) {
        throw this.error('a balance call returned no uint256');
      }
      return BigInt(result.returnData);
    });
    return balances;
  }

  private error(message: string): ChainError {
    return new ChainError('permanent', message, this.network.name);
  }
}

/** The address as one ABI word (checked first: a malformed one must not become another). */
function addressWord(address: string): string {
  return getAddress(address.toLowerCase()).slice(2).toLowerCase().padStart(64, '0');
}
