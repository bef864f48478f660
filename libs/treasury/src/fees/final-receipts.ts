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

/** A node's hash at a height and its head, read together. */
export interface HeaderProof {
  hash: string;
  head: number;
}

/** What nodes hold at each height, read once per batch of fees (many share a block). */
export type HeaderHashes = Map<number, Promise<HeaderProof | null>>;

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
   * The receipt, then the header at the receipt's height and the head, both in one call to one
   * RPC URL (the URL the receipt came from or not: a receipt is a function of its block). Final
   * only when that header's hash is the receipt's block hash and that head is finalityBlocks
   * above it: one node's proof, never a deep head from one URL and a block from another (a
   * node stuck on a stale fork serves both its block and a low head). `head`, read once per
   * batch from any URL, only spares the header read of a fee plainly not deep enough yet.
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
    // Not deep enough by the batch's head: no header read, the fee is read again next pass.
    const shallow = (top: number) => Math.max(top - blockNumber + 1, 0) < finalityBlocks;
    if (shallow(head)) {
      return { state: 'shallow', blockNumber, confirmations: Math.max(head - blockNumber + 1, 0) };
    }
    const proof = await this.headerAt(blockNumber, headers);
    if (!proof || proof.hash !== blockHash) return { state: 'off-chain' };
    if (shallow(proof.head)) {
      return {
        state: 'shallow',
        blockNumber,
        confirmations: Math.max(proof.head - blockNumber + 1, 0),
      };
    }
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

  /**
   * The hash a node holds at `blockNumber` and its head, read in one call (one URL), once per
   * height and batch. Neither a failed read nor an absent header is kept: the next fee of that
   * block asks again (a lagging backend's null is an absence, not an answer).
   */
  private headerAt(blockNumber: number, headers: HeaderHashes): Promise<HeaderProof | null> {
    let proof = headers.get(blockNumber);
    if (!proof) {
      const read = this.rpc.call('eth_getBlockByNumber', async (provider) => {
        const header = (await provider.send('eth_getBlockByNumber', [
          toQuantity(blockNumber),
          false,
        ])) as { hash: string } | null;
        if (!header) return null;
        return { hash: header.hash.toLowerCase(), head: await provider.getBlockNumber() };
      });
      proof = read.then(
        (answer) => {
          if (!answer && headers.get(blockNumber) === proof) headers.delete(blockNumber);
          return answer;
        },
        (error: unknown) => {
          if (headers.get(blockNumber) === proof) headers.delete(blockNumber);
          throw error;
        },
      );
      headers.set(blockNumber, proof);
    }
    return proof;
  }
}
