import { Network, WebSocketProvider } from 'ethers';
import { DEVNET_CHAIN_ID } from '../../test/support/devnet';
import type { Rpc } from '../kit/chain';
import { timestamp } from '../kit/clock';

/**
 * Follows the devnet's head through a newHeads subscription (anvil serves WebSocket on its HTTP
 * port) and remembers when each block was announced: "mined" in ms, pushed rather than polled,
 * so the benchmark adds no eth_blockNumber to the worker's calls in anvil's log and no load.
 */
export class HeadTracker {
  /** Block number -> when it was first announced (epoch ms). */
  private readonly seen = new Map<number, number>();
  private readonly listeners: Array<(block: number) => void> = [];
  private latest = -1;
  private stopped = false;

  private constructor(private readonly provider: WebSocketProvider) {}

  static async start(rpc: Rpc, rpcUrl: string): Promise<HeadTracker> {
    const network = Network.from(DEVNET_CHAIN_ID);
    const provider = new WebSocketProvider(rpcUrl.replace(/^http/, 'ws'), network, {
      staticNetwork: network,
    });
    const tracker = new HeadTracker(provider);
    await provider.on('block', (block: number) => tracker.record(block));
    tracker.record(Number(await rpc.call<string>('eth_blockNumber')));
    return tracker;
  }

  /** Called with every new head, right after it is recorded. */
  onBlock(listener: (block: number) => void): void {
    this.listeners.push(listener);
  }

  head(): number {
    return this.latest;
  }

  /** When the block was announced, or null if it was not (yet). */
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

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.listeners.length = 0;
    await this.provider.destroy();
  }

  private record(head: number): void {
    if (head <= this.latest) return;
    const now = timestamp();
    const first = this.latest < 0;
    // Blocks not announced on their own (none expected) count as mined now; the ones before the
    // subscription are not ours to time.
    for (let block = first ? head : this.latest + 1; block <= head; block++) {
      if (!this.seen.has(block)) this.seen.set(block, now);
    }
    this.latest = head;
    if (!first) for (const listener of this.listeners) listener(head);
  }
}
