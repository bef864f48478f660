import { JsonRpcProvider, toQuantity } from 'ethers';
import { NetworkConfig } from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { receiptFeeWei } from '@app/chains/adapters/evm/evm-receipt-fee';
import { SweepReceiptLog } from '@app/chains/sweeps/evm-sweep-receipt';

/**
 * What one node tells of a fee's transaction now. Only `final` decides anything: RPC endpoints
 * behind a balancer lag and disagree, so a missing receipt, one whose block is not the node's at
 * that height, or one not yet `finalityBlocks` deep is asked again later.
 */
export type FeeReceiptRead =
  | { state: 'missing' }
  | { state: 'off-chain' }
  | { state: 'shallow'; confirmations: number }
  | {
      state: 'final';
      blockNumber: number;
      blockHash: string;
      succeeded: boolean;
      /** As booked (receiptFeeWei: gasUsed x effectiveGasPrice, plus an OP-stack l1Fee); null if absent. */
      feeWei: bigint | null;
      /** What the transaction did there: a batch sweep's Swept events (sweep-reorg-amounts.ts). */
      logs: SweepReceiptLog[];
    };

interface RawReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  logs?: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
}

/** Receipts of booked fees, read again at a network's finality depth. */
export class FinalReceipts {
  private readonly rpc: EvmRpc;

  constructor(network: NetworkConfig) {
    this.rpc = new EvmRpc(network);
  }

  /** The receipt, the head and the header at the receipt's height, all from the same node. */
  async read(txHash: string, finalityBlocks: number): Promise<FeeReceiptRead> {
    return this.rpc.call('eth_getTransactionReceipt', async (provider: JsonRpcProvider) => {
      const raw = (await provider.send('eth_getTransactionReceipt', [txHash])) as RawReceipt | null;
      if (!raw) return { state: 'missing' };
      const blockNumber = Number(BigInt(raw.blockNumber));
      const blockHash = raw.blockHash.toLowerCase();
      const head = await provider.getBlockNumber();
      if (head < blockNumber) return { state: 'off-chain' };
      const header = (await provider.send('eth_getBlockByNumber', [
        toQuantity(blockNumber),
        false,
      ])) as { hash: string } | null;
      if (!header || header.hash.toLowerCase() !== blockHash) return { state: 'off-chain' };
      const confirmations = head - blockNumber + 1;
      if (confirmations < finalityBlocks) return { state: 'shallow', confirmations };
      return {
        state: 'final',
        blockNumber,
        blockHash,
        succeeded: BigInt(raw.status) === 1n,
        feeWei: receiptFeeWei(raw),
        logs: (raw.logs ?? []).map((log) => ({
          address: log.address,
          topics: log.topics,
          data: log.data,
          index: Number(BigInt(log.logIndex)),
        })),
      };
    });
  }

  /** The node's head, to skip fees whose recorded block cannot be final yet. */
  async head(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  async close(): Promise<void> {
    this.rpc.close();
  }
}
