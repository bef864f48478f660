import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { sleep } from './clock';

/*
 * The worker's RPC calls, counted from anvil's own request log (test/support/devnet.ts writes it
 * when given logFile; anvil prints one method name per request). Nothing sits between the worker
 * and the node. The benchmark itself never calls these three methods inside a measured window.
 */

const WORKER_METHODS = ['eth_blockNumber', 'eth_getLogs', 'eth_getBlockByNumber'] as const;
const METHOD_LINE = /^[a-z0-9]+_[A-Za-z0-9]+$/;
// anvil's output reaches the file through a pipe and a write stream: give it time to land.
const FLUSH_WAIT_MS = 300;

export interface WorkerRpcCalls {
  /** Scan ticks: each asks for the head once, and once more per scanned range (before getLogs). */
  ticks: number;
  byMethod: Record<(typeof WORKER_METHODS)[number], number>;
  perTick: Record<(typeof WORKER_METHODS)[number], number>;
}

export class RpcLog {
  constructor(readonly file: string) {}

  /** Where the next window starts. */
  mark(): number {
    return statSync(this.file).size;
  }

  async workerCallsSince(mark: number): Promise<WorkerRpcCalls> {
    await sleep(FLUSH_WAIT_MS);
    const counts = this.countMethods(mark);
    const byMethod = Object.fromEntries(
      WORKER_METHODS.map((method) => [method, counts.get(method) ?? 0]),
    ) as WorkerRpcCalls['byMethod'];
    const ticks = byMethod.eth_blockNumber - byMethod.eth_getLogs;
    const perTick = Object.fromEntries(
      WORKER_METHODS.map((method) => [method, ticks ? round(byMethod[method] / ticks) : 0]),
    ) as WorkerRpcCalls['perTick'];
    return { ticks, byMethod, perTick };
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
