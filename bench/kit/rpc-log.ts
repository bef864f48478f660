import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { sleep } from './clock';

/*
 * The worker's RPC calls, counted from anvil's own request log (test/support/devnet.ts writes it
 * when given logFile; anvil prints one method name per request). Nothing sits between the worker
 * and the node. The benchmark itself never calls the worker's three methods inside a measured
 * window (it learns of new blocks through a newHeads subscription, and mined transfers through
 * receipts).
 */

const WORKER_METHODS = ['eth_blockNumber', 'eth_getLogs', 'eth_getBlockByNumber'] as const;
type WorkerMethod = (typeof WORKER_METHODS)[number];
/** What the benchmark itself may send during a window: never counted as the worker's. */
const BENCH_METHODS = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  // anvil logs one for every eth_sendTransaction it signs (it looks up its unlocked accounts).
  'eth_accounts',
  'eth_getTransactionReceipt',
  'eth_subscribe',
  'eth_unsubscribe',
  'evm_mine',
  'anvil_mine',
  'evm_setAutomine',
  'evm_setIntervalMining',
  'evm_setBlockGasLimit',
  'txpool_status',
]);
const METHOD_LINE = /^[a-z0-9]+_[A-Za-z0-9]+$/;
// anvil's output reaches the file through a pipe and a write stream: give it time to land.
const FLUSH_WAIT_MS = 300;

export interface WorkerRpcCalls {
  /**
   * Head polls: every poll is one eth_blockNumber, and a poll that finds a new head goes on into
   * a full tick, which asks for the head once more (the same node, right before eth_getLogs).
   */
  polls: number;
  /** Full ticks: one eth_getLogs each (one range of up to 500 blocks). */
  fullTicks: number;
  byMethod: Record<WorkerMethod, number>;
  /** byMethod divided by full ticks. */
  perFullTick: Record<WorkerMethod, number>;
  /** Any other method logged in the window that is not the benchmark's own, with its count. */
  other: Record<string, number>;
}

export class RpcLog {
  constructor(readonly file: string) {}

  /** Where the next window starts. */
  mark(): number {
    return statSync(this.file).size;
  }

  /** The same, once the requests just sent (the benchmark's own) are in the file. */
  async markAfterFlush(): Promise<number> {
    await sleep(FLUSH_WAIT_MS);
    return this.mark();
  }

  async workerCallsSince(mark: number): Promise<WorkerRpcCalls> {
    await sleep(FLUSH_WAIT_MS);
    const counts = this.countMethods(mark);
    const byMethod = Object.fromEntries(
      WORKER_METHODS.map((method) => [method, counts.get(method) ?? 0]),
    ) as WorkerRpcCalls['byMethod'];
    const fullTicks = byMethod.eth_getLogs;
    const perFullTick = Object.fromEntries(
      WORKER_METHODS.map((method) => [method, fullTicks ? round(byMethod[method] / fullTicks) : 0]),
    ) as WorkerRpcCalls['perFullTick'];
    const other = Object.fromEntries(
      [...counts].filter(
        ([method]) =>
          !WORKER_METHODS.includes(method as WorkerMethod) && !BENCH_METHODS.has(method),
      ),
    );
    return {
      polls: byMethod.eth_blockNumber - fullTicks,
      fullTicks,
      byMethod,
      perFullTick,
      other,
    };
  }

  /** Every method anvil logged since `mark`, with how many requests each. */
  async methodCountsSince(mark: number): Promise<Map<string, number>> {
    await sleep(FLUSH_WAIT_MS);
    return this.countMethods(mark);
  }

  private countMethods(mark: number): Map<string, number> {
    const counts = new Map<string, number>();
    for (const line of this.readFrom(mark).split('\n')) {
      const method = line.trim();
      if (METHOD_LINE.test(method)) counts.set(method, (counts.get(method) ?? 0) + 1);
    }
    return counts;
  }

  private readFrom(mark: number): string {
    const size = statSync(this.file).size;
    const buffer = Buffer.alloc(Math.max(size - mark, 0));
    const descriptor = openSync(this.file, 'r');
    try {
      readSync(descriptor, buffer, 0, buffer.length, mark);
    } finally {
      closeSync(descriptor);
    }
    return buffer.toString('utf8');
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
