import { BlockLink, ChainAdapter, ChainError, NotYetError, TokenTransfer } from '@app/chains';
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
  /** The last block read in full: the cursor moves here. */
  scanTo: number;
  /**
   * True when the node lacked blocks (or logs) the tick meant to read, so scanTo stops short of
   * them: not yet, the next tick should come soon (no backoff).
   */
  waiting: boolean;
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
 * have (null block, or above its head) is unknown, never "changed": the plan stops below it
 * (`waiting`), or, when nothing past the fork point could be read, throws NotYetError.
 */
export async function planScan(input: PlanInput): Promise<ScanPlan> {
  const { adapter, state, head } = input;
  const reader = new BlockHashReader(adapter);
  const cursor = state.lastScannedBlock;
  if (head < cursor) {
    throw reader.notYet(`the node is at block ${head}, behind block ${cursor} already scanned`);
  }
  const { forkPoint, deepReorg, vouched } = await findForkPoint(reader, state.blocks, cursor);
  // Rescan at least the confirmation depth every time: a load-balanced RPC may have answered an
  // earlier eth_getLogs from a backend that was behind (inserts are idempotent).
  const trailing = Math.max(input.confirmations, 1);
  const scanFrom = Math.max(0, Math.min(forkPoint + 1, head - trailing + 1));
  const scanEnd = Math.min(head, scanFrom + adapter.maxScanRange * MAX_RANGES_PER_TICK - 1);

  const rememberFrom = Math.max(scanFrom, scanEnd - watchedDepth(input.confirmations) + 1);
  const rememberHeights = range(rememberFrom, scanEnd);
  const known = (height: number) => vouched && height <= forkPoint && state.blocks.has(height);
  for (const height of [...rememberHeights, ...input.openHeights]) {
    if (known(height)) reader.hashes.set(height, state.blocks.get(height) as string);
  }
  // The hashes are read while the logs are: the heights are known already, and a tick's reads
  // come before its transaction, on the path from a block to its payments being Paid.
  const [answers] = await Promise.all([
    scanRanges(input, scanFrom, scanEnd),
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
  const found = answers.flatMap((answer) => answer.transfers);
  for (const transfer of found) {
    const hash = reader.hashes.get(transfer.blockNumber);
    if (hash !== undefined && hash !== transfer.blockHash) {
      throw reader.unknown(`block ${transfer.blockNumber} changed while it was read (reorg?)`);
    }
  }
  const { scanTo, reason } = readableTo(input, reader, answers, rememberHeights, {
    from: scanFrom,
    end: scanEnd,
  });
  // Nothing past the last block known to be the chain's: no tick to commit, only "not yet".
  if (scanTo <= forkPoint && reason) throw reader.notYet(reason);
  const canonical = new Map([...reader.hashes].filter(([height]) => height <= scanTo));
  return {
    head,
    version: state.version,
    previousCursor: cursor,
    forkPoint,
    deepReorg,
    scanFrom,
    scanTo,
    waiting: scanTo < scanEnd,
    found: found.filter((transfer) => transfer.blockNumber <= scanTo),
    canonical,
    remember: new Map(
      rememberHeights
        .filter((height) => height <= scanTo)
        .map((height) => [height, reader.hashOf(height)]),
    ),
  };
}

/** One scanTransfers answer: the transfers of blocks from..to, as one node saw them. */
interface RangeAnswer {
  from: number;
  to: number;
  transfers: TokenTransfer[];
}

/**
 * The highest block this tick read in full: the logs were answered up to it, and every block to
 * remember up to it was there (not null) and is proven covered by the logs answer. An answer
 * cut short without saying so (a backend behind the range's end) lists no transfer of the blocks
 * it lacks: an empty block counts only when its header proves it holds no transfer of the tokens
 * (mayHoldTransfers), or the same answer lists a transfer in it or above it, in a block read as
 * the chain's (the node that answered had that block, so every block below it). `reason` says
 * why it stops short.
 */
function readableTo(
  input: PlanInput,
  reader: BlockHashReader,
  answers: RangeAnswer[],
  rememberHeights: number[],
  scan: { from: number; end: number },
): { scanTo: number; reason?: string } {
  const answeredTo = answers.length > 0 ? answers[answers.length - 1].to : scan.from - 1;
  // Per answer, the highest block it lists a transfer in, in a block read as the chain's.
  const provenTo = new Map<RangeAnswer, number>();
  for (const answer of answers) {
    let proven = answer.from - 1;
    for (const transfer of answer.transfers) {
      if (reader.hashes.get(transfer.blockNumber) !== transfer.blockHash) continue;
      proven = Math.max(proven, transfer.blockNumber);
    }
    provenTo.set(answer, proven);
  }
  const mayHold = input.adapter.mayHoldTransfers?.bind(input.adapter);
  const covered = (height: number) => {
    const link = reader.links.get(height);
    // Read in an earlier tick (remembered), or a chain without a header summary: as before.
    if (!link || !mayHold || !mayHold(link, input.contracts)) return true;
    const answer = answers.find((one) => one.from <= height && height <= one.to);
    return answer !== undefined && height <= (provenTo.get(answer) as number);
  };
  for (const height of rememberHeights) {
    if (height > answeredTo) {
      return { scanTo: answeredTo, reason: `the node has no logs of block ${answeredTo + 1} yet` };
    }
    if (reader.missing.has(height)) {
      return { scanTo: height - 1, reason: `the node has no block ${height} yet` };
    }
    if (!covered(height)) {
      return { scanTo: height - 1, reason: `the logs answered did not reach block ${height}` };
    }
  }
  return answeredTo < scan.end
    ? { scanTo: answeredTo, reason: `the node has no logs of block ${answeredTo + 1} yet` }
    : { scanTo: scan.end };
}

/**
 * The transfers of scanFrom..scanTo, a range of at most maxScanRange blocks at a time. A range
 * the node did not have yet (NotYetError) ends the list: the ranges before it stand.
 */
async function scanRanges(
  input: PlanInput,
  scanFrom: number,
  scanTo: number,
): Promise<RangeAnswer[]> {
  const answers: RangeAnswer[] = [];
  for (let from = scanFrom; from <= scanTo; from += input.adapter.maxScanRange) {
    const to = Math.min(scanTo, from + input.adapter.maxScanRange - 1);
    try {
      answers.push({
        from,
        to,
        transfers: await input.adapter.scanTransfers(from, to, input.contracts),
      });
    } catch (error) {
      if (error instanceof NotYetError) break;
      throw error;
    }
  }
  return answers;
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
    // Which remembered block is still there cannot be told from a node that lacks one of them.
    const lacking = batch.find((height) => reader.missing.has(height));
    if (lacking !== undefined) throw reader.notYet(`the node has no block ${lacking} yet`);
    const kept = batch.find((height) => reader.hashOf(height) === remembered.get(height));
    if (kept !== undefined) return { forkPoint: kept, deepReorg: false, vouched: true };
  }
  return { forkPoint: heights[heights.length - 1] - 1, deepReorg: true, vouched: false };
}

/** Block hashes read from the node, a few at a time; a missing block is unknown, not a change. */
class BlockHashReader {
  readonly hashes = new Map<number, string>();
  /** The parent each block read names (not for the hashes taken from memory). */
  readonly parents = new Map<number, string | null>();
  /** Each block read, as the node gave it. */
  readonly links = new Map<number, BlockLink>();
  /** Heights the node answered null for: it did not have them (yet). */
  readonly missing = new Set<number>();

  constructor(private readonly adapter: ChainAdapter) {}

  async readAll(heights: number[]): Promise<void> {
    const missing = [...new Set(heights)].filter((height) => !this.hashes.has(height));
    for (let start = 0; start < missing.length; start += BLOCK_HASH_CONCURRENCY) {
      await Promise.all(
        missing.slice(start, start + BLOCK_HASH_CONCURRENCY).map(async (height) => {
          const link = await this.adapter.getBlockLink(height);
          if (link === null) {
            this.missing.add(height);
            return;
          }
          this.hashes.set(height, link.hash);
          this.parents.set(height, link.parentHash);
          this.links.set(height, link);
        }),
      );
    }
  }

  hashOf(height: number): string {
    const hash = this.hashes.get(height);
    if (hash === undefined) throw new Error(`block ${height} was not read`);
    return hash;
  }

  /** The chain's state is unknown this tick (answers that disagree, a block in flux). */
  unknown(reason: string): ChainError {
    return new ChainError('transient', reason, this.adapter.network.name);
  }

  /** The node lacked something (a lagging backend): nothing is concluded, the next tick asks again. */
  notYet(reason: string): NotYetError {
    return new NotYetError(reason, this.adapter.network.name);
  }
}

function range(from: number, to: number): number[] {
  return from > to ? [] : Array.from({ length: to - from + 1 }, (_, offset) => from + offset);
}
