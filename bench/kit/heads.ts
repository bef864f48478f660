import { Network, WebSocketProvider } from 'ethers';
import type { Rpc } from './chain';
import { timestamp } from './clock';

/**
 * Follows the head through a newHeads subscription (anvil serves WebSocket on its HTTP port) and
 * remembers when each block was first announced, so any moment of the run maps to the head at
 * that moment, and any block to when it was mined. Pushed, not polled: no load on the node, no
 * eth_blockNumber calls mixed with the worker's in anvil's log, and ms-exact mining times.
 */
export class HeadTracker {
  /** Block number -> when it was first announced (epoch ms). */
  private readonly seen = new Map<number, number>();
  private readonly listeners: Array<(block: number) => void> = [];
  private latest = -1;
  private stopped = false;

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

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.listeners.length = 0;
    await this.provider.destroy();
  }

  /** Called with every new head after start(), right after it is recorded. */
  onBlock(listener: (block: number) => void): void {
    this.listeners.push(listener);
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

  /** The blocks announced between two moments, in order, with when. */
  blocksBetween(from: number, to: number): Array<{ block: number; at: number }> {
    return [...this.seen]
      .filter(([, at]) => at >= from && at <= to)
      .map(([block, at]) => ({ block, at }))
      .sort((a, b) => a.block - b.block);
  }

  private record(head: number): void {
    if (head <= this.latest) return;
    const now = timestamp();
    // Blocks not announced on their own (none expected) count as mined now.
    for (let block = this.latest + 1; block <= head; block++) {
      if (!this.seen.has(block)) this.seen.set(block, now);
    }
    this.latest = head;
    for (const listener of this.listeners) listener(head);
  }
}
