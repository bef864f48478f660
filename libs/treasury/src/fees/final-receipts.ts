import { toQuantity } from 'ethers';
import { NetworkConfig } from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { DEFAULT_RETRY, RetryOptions } from '@app/chains/rpc/retry';
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

/** The hash a node holds at each height, read once per batch of fees (many share a block). */
export type HeaderHashes = Map<number, Promise<string | null>>;

/**
 * A read of a fee gives up after this many attempts (not DEFAULT_RETRY's 4): nothing waits on a
 * fee becoming final, and a pass stops reading a network whose node keeps failing
 * (NetworkFeeFinality), so a hung node costs seconds, not the ~42 s a row of four attempts.
 */
const FEE_READ_RETRY: RetryOptions = { ...DEFAULT_RETRY, attempts: 2 };

/** Receipts of booked fees, read again at a network's finality depth. */
export class FinalReceipts {
  private readonly rpc: EvmRpc;

  constructor(network: NetworkConfig) {
    this.rpc = new EvmRpc(network, FEE_READ_RETRY);
  }

  /**
   * The receipt, then the node's header at the receipt's height, against `head` (read once per
   * batch, before: a head older than the header only counts fewer confirmations). The header's
   * hash must be the receipt's block hash: the proof that the node holds that block at that
   * height, whichever backend told of the receipt (a receipt is a function of its block).
   */
  async read(
    txHash: string,
    finalityBlocks: number,
    head: number,
    headers: HeaderHashes,
  ): Promise<FeeReceiptRead> {
    const raw = await this.rpc.call(
      'eth_getTransactionReceipt',
      (provider) =>
        provider.send('eth_getTransactionReceipt', [txHash]) as Promise<RawReceipt | null>,
    );
    if (!raw) return { state: 'missing' };
    const blockNumber = Number(BigInt(raw.blockNumber));
    const blockHash = raw.blockHash.toLowerCase();
    // Not deep enough (above the head read before: newer than it): no header read needed, the
    // fee is read again next pass.
    const confirmations = Math.max(head - blockNumber + 1, 0);
    if (confirmations < finalityBlocks) return { state: 'shallow', blockNumber, confirmations };
    if ((await this.headerHash(blockNumber, headers)) !== blockHash) return { state: 'off-chain' };
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
  }

  /** The node's head, to skip fees whose recorded block cannot be final yet. */
  async head(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  /** One read per height and batch; a failed read is not kept (the next fee asks again). */
  private headerHash(blockNumber: number, headers: HeaderHashes): Promise<string | null> {
    let hash = headers.get(blockNumber);
    if (!hash) {
      hash = this.rpc
        .call('eth_getBlockByNumber', async (provider) => {
          const header = (await provider.send('eth_getBlockByNumber', [
            toQuantity(blockNumber),
            false,
          ])) as { hash: string } | null;
          return header ? header.hash.toLowerCase() : null;
        })
        .catch((error: unknown) => {
          headers.delete(blockNumber);
          throw error;
        });
      headers.set(blockNumber, hash);
    }
    return hash;
  }
}
