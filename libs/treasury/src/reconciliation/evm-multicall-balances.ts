import { id, toQuantity } from 'ethers';
import { ChainError, NetworkConfig } from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { MULTICALL3_ADDRESS } from '@app/chains/contracts/multicall3';
import { BalanceQuery, ChainBalanceReader, mapConcurrently } from './balance-reads';
import { Call3, decodeAggregate3, encodeAggregate3 } from './multicall3-codec';

const BALANCE_OF = id('balanceOf(address)').slice(0, 10);
const GET_ETH_BALANCE = id('getEthBalance(address)').slice(0, 10);
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

// Calls per eth_call: about 2.6k gas each, so 500 stay far below any node's eth_call gas cap
// (50M on geth by default) and below the answer size limits of hosted RPCs.
const CALLS_PER_BATCH = 500;
const PARALLEL_BATCHES = 8;

/**
 * The one Multicall3 balance reader, for reconciliation and the sweep planner alike: aggregate3
 * of balanceOf on the token for a token balance, Multicall3's own getEthBalance for native coin.
 * One eth_call per 500 balances, several in parallel, every one pinned to the same block (or all
 * at 'latest'), so a load-balanced URL's backends all answer one state of the chain. A failed call
 * fails the whole read: a balance is never guessed.
 */
export class EvmMulticallBalances implements ChainBalanceReader {
  private readonly rpc: EvmRpc;
  private readonly ownsRpc: boolean;

  /** `rpc`: the caller's client (closed by the caller); otherwise one of its own. */
  constructor(
    private readonly network: NetworkConfig,
    rpc?: EvmRpc,
  ) {
    this.rpc = rpc ?? new EvmRpc(network);
    this.ownsRpc = rpc === undefined;
  }

  async readBlock(confirmations: number): Promise<number> {
    const head = await this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
    return Math.max(head - confirmations + 1, 0);
  }

  /** One balance per query, in the queries' order. */
  async read(queries: BalanceQuery[], block: number | 'latest'): Promise<bigint[]> {
    const tag = block === 'latest' ? 'latest' : toQuantity(block);
    const calls = queries.map((query) => this.callOf(query));
    const batches: Call3[][] = [];
    for (let start = 0; start < calls.length; start += CALLS_PER_BATCH) {
      batches.push(calls.slice(start, start + CALLS_PER_BATCH));
    }
    const answers = await mapConcurrently(batches, PARALLEL_BATCHES, (batch) =>
      this.readBatch(batch, tag),
    );
    return answers.flat();
  }

  /** One token's balances, keyed by the addresses as given. */
  async tokenBalances(
    token: string,
    addresses: readonly string[],
    block: number | 'latest',
  ): Promise<Map<string, bigint>> {
    const balances = await this.read(
      addresses.map((address) => ({ address, token })),
      block,
    );
    return new Map(addresses.map((address, index) => [address, balances[index]]));
  }

  async close(): Promise<void> {
    if (this.ownsRpc) this.rpc.close();
  }

  private callOf({ address, token }: BalanceQuery): Call3 {
    // Checked first: a malformed address must not become another one's word.
    const owner = this.word(address, 'address');
    return token === null
      ? { target: MULTICALL3_ADDRESS, allowFailure: false, callData: `${GET_ETH_BALANCE}${owner}` }
      : {
          target: `0x${this.word(token, 'token').slice(24)}`,
          allowFailure: false,
          callData: `${BALANCE_OF}${owner}`,
        };
  }

  /** An address as one ABI word (lowercase hex, no 0x). */
  private word(address: string, what: string): string {
    if (!HEX_ADDRESS.test(address)) throw this.error(`malformed ${what} ${address}`);
    return address.slice(2).toLowerCase().padStart(64, '0');
  }

  private async readBatch(calls: Call3[], tag: string): Promise<bigint[]> {
    const data = encodeAggregate3(calls);
    const answer = await this.rpc.call('eth_call', (provider) =>
      provider.send('eth_call', [{ to: MULTICALL3_ADDRESS, data }, tag]),
    );
    if (answer === '0x') throw this.error(`no Multicall3 at ${MULTICALL3_ADDRESS} at ${tag}`);
    let returned: ReturnType<typeof decodeAggregate3>;
    try {
      returned = decodeAggregate3(answer as string);
    } catch (error) {
      throw this.error(`Multicall3 answer: ${(error as Error).message}`);
    }
    if (returned.length !== calls.length) {
      throw this.error('Multicall3 answered another number of calls');
    }
    return returned.map((result) => {
      // One uint256: 0x and 64 hex digits. Anything else is not a balance (no token there).
      if (!result.success || result.returnData.length !== 66) {
        throw this.error('a balance call returned no uint256');
      }
      return BigInt(result.returnData);
    });
  }

  private error(message: string): ChainError {
    return new ChainError('permanent', message, this.network.name);
  }
}
