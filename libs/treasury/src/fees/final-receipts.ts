import { NetworkConfig } from '@app/chains';
import { EvmRpc, noReceipt } from '@app/chains/adapters/evm/evm-rpc';
import { DEFAULT_RETRY, RetryOptions } from '@app/chains/rpc/retry';
import { receiptFeeWei } from '@app/chains/adapters/evm/evm-receipt-fee';
import { requireWholeFee, wholeReceiptOr } from '@app/chains/adapters/evm/receipts-without-fee';
import { SweepReceiptLog } from '@app/chains/sweeps/evm-sweep-receipt';
import { LinkedHeaders } from './linked-headers';

/**
 * What one node tells of a fee's transaction now. Only `final` decides anything: RPC endpoints
 * behind a balancer lag and disagree, so a missing receipt, one whose block is not the node's at
 * that height, or one not yet `finalityBlocks` deep is asked again later.
 */
export type FeeReceiptRead =
  | { state: 'missing' }
  | { state: 'off-chain' }
  | { state: 'shallow'; blockNumber: number; confirmations: number }
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

/**
 * A read of a fee gives up after this many attempts (not DEFAULT_RETRY's 4): nothing waits on a
 * fee becoming final, and a pass stops reading a network whose node keeps failing
 * (NetworkFeeFinality), so a hung node costs seconds, not the ~42 s a row of four attempts.
 */
const FEE_READ_RETRY: RetryOptions = { ...DEFAULT_RETRY, attempts: 2 };

/** Receipts of booked fees, read again at a network's finality depth. */
export class FinalReceipts {
  private readonly rpc: EvmRpc;

  constructor(private readonly network: NetworkConfig) {
    this.rpc = new EvmRpc(network, FEE_READ_RETRY);
  }

  /**
   * The receipt, then the proof of its block's depth: its header and the finalityBlocks - 1
   * above it linked by their parent hashes (LinkedHeaders), whichever URL or backend served each
   * (a receipt is a function of its block). `head`, read once per batch, only spares the proof of
   * a fee plainly not deep enough yet.
   */
  async read(
    txHash: string,
    finalityBlocks: number,
    head: number,
    headers: LinkedHeaders,
  ): Promise<FeeReceiptRead> {
    // One without its fee (an OP-stack l1Fee) is asked of the next URL; if none answers it
    // whole, it is read on without a fee (feeWei null: nothing settled on it).
    const raw = await wholeReceiptOr(this.network.name, () =>
      this.rpc.callReceipt('eth_getTransactionReceipt', noReceipt, async (provider) => {
        const answer = (await provider.send('eth_getTransactionReceipt', [
          txHash,
        ])) as RawReceipt | null;
        // Pending (no block yet) is no receipt, checked before the fee (review r9b follow-up
        // 3, L-1): a pending receipt without l1Fee is no proof of a block.
        if (!answer || answer.blockHash == null || answer.blockNumber == null) return null;
        requireWholeFee(answer, this.network, txHash, answer);
        return answer;
      }),
    );
    if (!raw) return { state: 'missing' };
    const blockNumber = Number(BigInt(raw.blockNumber));
    const blockHash = raw.blockHash.toLowerCase();
    // Not deep enough by the batch's head: no header read, the fee is read again next pass.
    const shallow = (top: number) => Math.max(top - blockNumber + 1, 0) < finalityBlocks;
    if (shallow(head)) {
      return { state: 'shallow', blockNumber, confirmations: Math.max(head - blockNumber + 1, 0) };
    }
    const burial = await headers.burial(blockNumber, blockHash, finalityBlocks);
    if (burial === 'off-chain') return { state: 'off-chain' };
    if (burial === 'not-yet') {
      return { state: 'shallow', blockNumber, confirmations: Math.max(head - blockNumber + 1, 0) };
    }
    return {
      state: 'final',
      blockNumber,
      blockHash,
      succeeded: BigInt(raw.status) === 1n,
      feeWei: receiptFeeWei(raw, this.network),
      logs: (raw.logs ?? []).map((log) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        index: Number(BigInt(log.logIndex)),
      })),
    };
  }

  /** The node's head, to skip fees whose recorded block cannot be final yet. */
  async head(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  /** A new batch's headers (read once each within it). */
  batchHeaders(): LinkedHeaders {
    return new LinkedHeaders(this.rpc);
  }

  async close(): Promise<void> {
    this.rpc.close();
  }
}
