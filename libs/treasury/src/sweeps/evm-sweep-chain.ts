import { getAddress, Interface, JsonRpcProvider, toQuantity } from 'ethers';
import { NetworkConfig } from '@app/chains';
import { receiptFeeWei } from '@app/chains/adapters/evm/evm-receipt-fee';
import { MULTICALL3_ADDRESS } from '@app/chains/contracts/multicall3';
import { SweepReceiptLog } from '@app/chains/sweeps/evm-sweep-receipt';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';

const MULTICALL3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const ERC20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);
// balanceOf calls per eth_call: far below any node's gas cap for calls (about 10k gas each).
const BALANCES_PER_CALL = 500;

/** A mined sweep transaction, as one node's receipt and head tell it. */
export interface SweepReceipt {
  succeeded: boolean;
  blockNumber: number;
  confirmations: number;
  logs: SweepReceiptLog[];
  /** What the sweeper paid, in wei (L1 data fee included); null when the receipt lacks it. */
  feeWei: bigint | null;
}

/**
 * The chain reads a sweep needs beyond the payout transport's (which broadcasts, looks up and
 * proves nonces): delegation codes, authority nonces, token balances in bulk, full receipts.
 * Same RPC behaviour (retries, failover) as every other EVM read.
 */
export class EvmSweepChain {
  private readonly rpc: EvmRpc;

  constructor(readonly network: NetworkConfig) {
    this.rpc = new EvmRpc(network);
  }

  /** Token balances in base units at one block, through Multicall3: one read per 500 addresses. */
  async tokenBalances(
    token: string,
    addresses: readonly string[],
    blockTag: number | 'latest' = 'latest',
  ): Promise<Map<string, bigint>> {
    const balances = new Map<string, bigint>();
    for (let start = 0; start < addresses.length; start += BALANCES_PER_CALL) {
      const slice = addresses.slice(start, start + BALANCES_PER_CALL);
      const data = MULTICALL3.encodeFunctionData('aggregate3', [
        slice.map((address) => ({
          target: token,
          allowFailure: false,
          callData: ERC20.encodeFunctionData('balanceOf', [address]),
        })),
      ]);
      const tag = blockTag === 'latest' ? 'latest' : toQuantity(blockTag);
      const answer = await this.rpc.call('eth_call', (provider) =>
        provider.send('eth_call', [{ to: MULTICALL3_ADDRESS, data }, tag]),
      );
      const [results] = MULTICALL3.decodeFunctionResult(
        'aggregate3',
        answer as string,
      ) as unknown as [Array<{ success: boolean; returnData: string }>];
      slice.forEach((address, index) => {
        const [balance] = ERC20.decodeFunctionResult('balanceOf', results[index].returnData);
        balances.set(address, balance as bigint);
      });
    }
    return balances;
  }

  /** eth_getCode of each address (the 23-byte designator once delegated), read concurrently. */
  async codes(addresses: readonly string[]): Promise<Map<string, string>> {
    const entries = await Promise.all(
      addresses.map(async (address) => {
        const code = await this.rpc.call('eth_getCode', (provider) =>
          provider.send('eth_getCode', [address, 'latest']),
        );
        return [address, String(code).toLowerCase()] as const;
      }),
    );
    return new Map(entries);
  }

  /** Each address's mined transaction count: the nonce its next authorization must carry. */
  async nonces(addresses: readonly string[]): Promise<Map<string, number>> {
    const entries = await Promise.all(
      addresses.map(async (address) => {
        const count = await this.rpc.call('eth_getTransactionCount', (provider) =>
          provider.getTransactionCount(address, 'latest'),
        );
        return [address, count] as const;
      }),
    );
    return new Map(entries);
  }

  /** Native coin balance in wei. */
  async nativeBalance(address: string): Promise<bigint> {
    return this.rpc.call('eth_getBalance', (provider) => provider.getBalance(address, 'latest'));
  }

  /** The node's head block number. */
  async headBlock(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  /** What gas costs now (eth_gasPrice: base fee plus a tip), for the policy only. */
  async gasPrice(): Promise<bigint> {
    const answer = await this.rpc.call('eth_gasPrice', (provider) =>
      provider.send('eth_gasPrice', []),
    );
    return BigInt(answer as string);
  }

  /** The receipt with its logs and fee, or null; receipt and head from the same node. */
  async receipt(txHash: string): Promise<SweepReceipt | null> {
    return this.rpc.call('eth_getTransactionReceipt', async (provider: JsonRpcProvider) => {
      const raw = (await provider.send('eth_getTransactionReceipt', [txHash])) as RawReceipt | null;
      if (!raw) return null;
      const head = await provider.getBlockNumber();
      const blockNumber = Number(BigInt(raw.blockNumber));
      if (head < blockNumber) return null;
      return {
        succeeded: BigInt(raw.status) === 1n,
        blockNumber,
        confirmations: head - blockNumber + 1,
        logs: raw.logs.map((log) => ({
          address: getAddress(log.address),
          topics: log.topics,
          data: log.data,
          index: Number(BigInt(log.logIndex)),
        })),
        feeWei: receiptFeeWei(raw),
      };
    });
  }

  close(): void {
    this.rpc.close();
  }
}

interface RawReceipt {
  status: string;
  blockNumber: string;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
}
