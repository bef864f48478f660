import { ChainAdapter, ChainError, TokenTransfer } from '@app/chains';
import { CursorState } from './chain-cursors.repository';

// Bounded work per tick: a watcher far behind catches up over several ticks.
const MAX_RANGES_PER_TICK = 20;
// Block-hash lookups in flight at once (a hosted RPC answers in ~50 ms; dozens one after another
// would outlast a tick).
const BLOCK_HASH_CONCURRENCY = 8;
/**
 * Blocks past the confirmations that stay remembered and under watch. A reorg deeper than the
 * confirmations is rare but real (and a devnet with 1 confirmation must survive one); deeper than
 * this it is not undone automatically (logged as an error, see docs/deposit-detection.md).
 */
export const REORG_SAFETY_BLOCKS = 64;

/** What one tick read from the chain, before it touches the database. */
export interface ScanPlan {
  head: number;
  /** The cursor's compare-and-set token this plan was made from. */
  version: number;
  previousCursor: number;
  /** The highest remembered block still on the chain: everything above it is rescanned. */
  forkPoint: number;
  /** True when no remembered block is still on the chain: a reorg deeper than the window. */
  deepReorg: boolean;
  scanFrom: number;
  scanTo: number;
  found: TokenTransfer[];
  /** The chain's hash at each height this tick needs to judge (remembered or read now). */
  canonical: Map<number, string>;
  /** The blocks to remember after this tick. */
  remember: Map<number, string>;
}

export interface PlanInput {
  adapter: ChainAdapter;
  /** The node's head, read at the start of the tick. */
  head: number;
  state: CursorState;
  confirmations: number;
  contracts: string[];
  /** Heights of transfers still open to a reorg (pending, or confirmed within the window). */
  openHeights: number[];
}

/** Blocks watched past the head: confirmations plus the reorg safety margin. */
export function watchedDepth(confirmations: number): number {
  return Math.max(confirmations, 1) + REORG_SAFETY_BLOCKS;
}

/**
 * Reads everything a tick needs from the chain: head, fork point, transfers, block hashes. Takes
 * no lock, so a slow or hanging RPC holds no database transaction. A height the node does not
 * have (null block, or above its head) is unknown, never "changed": the tick is skipped.
 */
export async function planScan(input: PlanInput): Promise<ScanPlan> {
  const { adapter, state, head } = input;
  const reader = new BlockHashReader(adapter);
  const cursor = state.lastScannedBlock;
  if (head < cursor) {
    throw reader.unknown(`the node is at block ${head}, behind block ${cursor} already scanned`);
  }
  const { forkPoint, deepReorg, vouched } = await findForkPoint(reader, state.blocks, cursor);
  // Rescan at least the confirmation depth every time: a load-balanced RPC may have answered an
  // earlier eth_getLogs from a backend that was behind (inserts are idempotent).
  const trailing = Math.max(input.confirmations, 1);
  const scanFrom = Math.max(0, Math.min(forkPoint + 1, head - trailing + 1));
  const scanTo = Math.min(head, scanFrom + adapter.maxScanRange * MAX_RANGES_PER_TICK - 1);

  const rememberFrom = Math.max(scanFrom, scanTo - watchedDepth(input.confirmations) + 1);
  const rememberHeights = range(rememberFrom, scanTo);
  const known = (height: number) => vouched && height <= forkPoint && state.blocks.has(height);
  for (const height of [...rememberHeights, ...input.openHeights]) {
    if (known(height)) reader.hashes.set(height, state.blocks.get(height) as string);
  }
  // The hashes are read while the logs are: the heights are known already, and a tick's reads
  // come before its transaction, on the path from a block to its payments being Paid.
  const [found] = await Promise.all([
    scanRanges(input, scanFrom, scanTo),
    reader.readAll([...rememberHeights, ...input.openHeights].filter((h) => !known(h))),
  ]);

  // Blocks read in one tick may come from different backends of a load-balanced RPC, one of
  // them on another fork: remembered, such a hash would be vouched for by the tip later on and
  // never read again. Each block read must name the block below it as its parent.
  for (const height of rememberHeights) {
    const parent = reader.parents.get(height);
    const below = reader.hashes.get(height - 1);
    if (parent != null && below !== undefined && parent !== below) {
      throw reader.unknown(
        `block ${height} does not follow block ${height - 1} as read (answers from two forks?)`,
      );
    }
  }
  for (const transfer of found) {
    const hash = reader.hashes.get(transfer.blockNumber);
    if (hash !== undefined && hash !== transfer.blockHash) {
      throw reader.unknown(`block ${transfer.blockNumber} changed while it was read (reorg?)`);
    }
  }
  return {
    head,
    version: state.version,
    previousCursor: cursor,
    forkPoint,
    deepReorg,
    scanFrom,
    scanTo,
    found,
    canonical: reader.hashes,
    remember: new Map(rememberHeights.map((height) => [height, reader.hashOf(height)])),
  };
}

/** The transfers of scanFrom..scanTo, a range of at most maxScanRange blocks at a time. */
async function scanRanges(
  input: PlanInput,
  scanFrom: number,
  scanTo: number,
): Promise<TokenTransfer[]> {
  const found: TokenTransfer[] = [];
  for (let from = scanFrom; from <= scanTo; from += input.adapter.maxScanRange) {
    const to = Math.min(scanTo, from + input.adapter.maxScanRange - 1);
    found.push(...(await input.adapter.scanTransfers(from, to, input.contracts)));
  }
  return found;
}

/**
 * The highest remembered block the chain still has. The tip first: a block still in place vouches
 * for every block under it (each block names its parent), so one call settles the usual case.
 */
async function findForkPoint(
  reader: BlockHashReader,
  remembered: Map<number, string>,
  cursor: number,
): Promise<{ forkPoint: number; deepReorg: boolean; vouched: boolean }> {
  const heights = [...remembered.keys()].filter((h) => h <= cursor).sort((a, b) => b - a);
  // A new cursor (or one from before blocks were remembered) trusts its position but none of the
  // remembered hashes: every hash the tick needs is read from the node.
  if (heights[0] !== cursor) return { forkPoint: cursor, deepReorg: false, vouched: false };
  const batches = [heights.slice(0, 1)];
  for (let start = 1; start < heights.length; start += BLOCK_HASH_CONCURRENCY) {
    batches.push(heights.slice(start, start + BLOCK_HASH_CONCURRENCY));
  }
  for (const batch of batches) {
    await reader.readAll(batch);
    const kept = batch.find((height) => reader.hashOf(height) === remembered.get(height));
    if (kept !== undefined) return { forkPoint: kept, deepReorg: false, vouched: true };
  }
  return { forkPoint: heights[heights.length - 1] - 1, deepReorg: true, vouched: false };
}

/** Block hashes read from the node, a few at a time; a missing block is an error, not a change. */
class BlockHashReader {
  readonly hashes = new Map<number, string>();
  /** The parent each block read names (not for the hashes taken from memory). */
  readonly parents = new Map<number, string | null>();

  constructor(private readonly adapter: ChainAdapter) {}

  async readAll(heights: number[]): Promise<void> {
    const missing = [...new Set(heights)].filter((height) => !this.hashes.has(height));
    for (let start = 0; start < missing.length; start += BLOCK_HASH_CONCURRENCY) {
      await Promise.all(
        missing.slice(start, start + BLOCK_HASH_CONCURRENCY).map(async (height) => {
          const link = await this.adapter.getBlockLink(height);
          if (link === null) throw this.unknown(`the node has no block ${height} yet`);
          this.hashes.set(height, link.hash);
          this.parents.set(height, link.parentHash);
        }),
      );
    }
  }

  hashOf(height: number): string {
    const hash = this.hashes.get(height);
    if (hash === undefined) throw new Error(`block ${height} was not read`);
    return hash;
  }

  /** The chain's state is unknown this tick (a lagging node, a block in flux): try the next. */
  unknown(reason: string): ChainError {
    return new ChainError('transient', reason, this.adapter.network.name);
  }
}

function range(from: number, to: number): number[] {
  return from > to ? [] : Array.from({ length: to - from + 1 }, (_, offset) => from + offset);
}
