import {
  getAddress,
  id,
  Interface,
  Network,
  toQuantity,
  WebSocketProvider,
  zeroPadValue,
} from 'ethers';
import type { Rpc } from '../deposits/chain';
import { timestamp } from '../deposits/clock';

/*
 * What the benchmark reads from anvil: the head over time (to turn moments into blocks), the hot
 * wallet's token balance, receipts and Transfer logs. Calls go through the plain JSON-RPC client
 * of bench/deposits: the devnet's ethers provider batches requests with a 10 ms stall.
 */

const ERC20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
const RECEIPT_CONCURRENCY = 16;

/**
 * Follows the head through a newHeads subscription (anvil serves WebSocket on its HTTP port) and
 * remembers when each block was first announced, so any moment of the run maps to the head at
 * that moment, and any block to when it was mined. Pushed, not polled: no load on the node, no
 * eth_blockNumber calls mixed with the worker's in anvil's log, and ms-exact mining times.
 */
export class HeadTracker {
  /** Block number -> when it was first announced (epoch ms). */
  private readonly seen = new Map<number, number>();
  private latest = -1;

  private constructor(private readonly provider: WebSocketProvider) {}

  static async start(rpc: Rpc, rpcUrl: string, chainId: number): Promise<HeadTracker> {
    const network = Network.from(chainId);
    const provider = new WebSocketProvider(rpcUrl.replace(/^http/, 'ws'), network, {
      staticNetwork: network,
    });
    const tracker = new HeadTracker(provider);
    await provider.on('block', (block: number) => tracker.record(block));
    tracker.record(Number(await rpc.call<string>('eth_blockNumber')));
    return tracker;
  }

  private stopped = false;

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.provider.destroy();
  }

  /** The head when `at` happened: the highest block announced by then. */
  headAt(at: number): number {
    let head = -1;
    for (const [block, seenAt] of this.seen) if (seenAt <= at && block > head) head = block;
    return head;
  }

  head(): number {
    return this.latest;
  }

  /** When the block was announced (mined), or null if it never was. */
  seenAt(block: number): number | null {
    return this.seen.get(block) ?? null;
  }

  private record(head: number): void {
    const now = timestamp();
    // Blocks not announced on their own (none expected) count as mined now.
    for (let block = this.latest + 1; block <= head; block++) {
      if (!this.seen.has(block)) this.seen.set(block, now);
    }
    this.latest = Math.max(this.latest, head);
  }
}

export async function tokenBalance(rpc: Rpc, token: string, holder: string): Promise<bigint> {
  const data = ERC20.encodeFunctionData('balanceOf', [holder]);
  return BigInt(await rpc.call<string>('eth_call', [{ to: token, data }, 'latest']));
}

export interface Receipt {
  txHash: string;
  blockNumber: number;
  succeeded: boolean;
}

/** Receipts by transaction hash (lower case); a hash without one is missing from the map. */
export async function receipts(rpc: Rpc, txHashes: string[]): Promise<Map<string, Receipt>> {
  const found = new Map<string, Receipt>();
  const queue = [...txHashes];
  const fetchNext = async () => {
    for (let hash = queue.pop(); hash !== undefined; hash = queue.pop()) {
      const receipt = await rpc.call<{ blockNumber: string; status: string } | null>(
        'eth_getTransactionReceipt',
        [hash],
      );
      if (receipt) {
        found.set(hash.toLowerCase(), {
          txHash: hash.toLowerCase(),
          blockNumber: Number(receipt.blockNumber),
          succeeded: receipt.status === '0x1',
        });
      }
    }
  };
  await Promise.all(Array.from({ length: RECEIPT_CONCURRENCY }, fetchNext));
  return found;
}

export interface TokenTransfer {
  txHash: string;
  blockNumber: number;
  to: string;
  amount: bigint;
}

/** Every Transfer of `token` sent by `from` in blocks fromBlock..latest, as the chain records it. */
export async function transfersFrom(
  rpc: Rpc,
  token: string,
  from: string,
  fromBlock: number,
): Promise<TokenTransfer[]> {
  const logs = await rpc.call<
    Array<{ transactionHash: string; blockNumber: string; topics: string[]; data: string }>
  >('eth_getLogs', [
    {
      address: token,
      topics: [TRANSFER_TOPIC, zeroPadValue(from, 32)],
      fromBlock: toQuantity(fromBlock),
      toBlock: 'latest',
    },
  ]);
  return logs.map((log) => ({
    txHash: log.transactionHash.toLowerCase(),
    blockNumber: Number(log.blockNumber),
    to: getAddress(`0x${log.topics[2].slice(26)}`),
    amount: BigInt(log.data),
  }));
}
