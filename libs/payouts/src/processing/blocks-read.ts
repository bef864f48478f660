import { BlockHeader, BlockReceipt, EvmPayoutTransport, TransactionLookup } from '@app/chains';
import { ProvenSegments } from './proven-segments';

export type MinedLookup = Extract<TransactionLookup, { state: 'mined' }>;

// A first look (or one after a gap) reads the blocks just below the head too: a payout may have
// been mined moments before the tracker started reading.
const BACKFILL_BLOCKS = 16;
// Blocks read in one look at most: a tracker that fell behind catches up over a few ticks.
const MAX_READS_PER_LOOK = 64;
// Further behind than this (the tracker was stopped), reading starts again near the head: the
// payouts mined in between are looked up one receipt at a time, as they always were.
const MAX_BEHIND = 4 * MAX_READS_PER_LOOK;
// The heads of this many looks are remembered: behind a load balancer half of them may come from
// a backend behind, and the highest says how far the chain is known to go.
const HEADS_REMEMBERED = 8;
// Looks in a row that read no block while behind: the run is stuck on a block no node answers
// whole, and reading starts again from the head (its payouts are looked up one by one).
const STALLED_LOOKS = 30;
// Looks in a row whose head was below the last block read, before the run is taken for a chain
// that changed under us (a restarted devnet). Behind a load balancer one backend behind, stalled
// or on a lost fork answers about every other look: never this many in a row (0.5^30).
const LOW_LOOKS = 30;
// Hashes of blocks below the run kept, each the parent of the one above: a receipt looked up one
// by one in a block below the run is counted only once its block is found among them.
const MAX_ANCESTORS = 65_536;
// A walk down further than this reads by number, ANCESTOR_BATCH headers at once (concurrent
// requests: the RPC client sends no JSON-RPC batches), each accepted only as the parent of the
// block above it: the same proof as a read by hash, without one round trip per block (review
// r9a, N1: 64 sequential reads a look fell behind a fast chain, 4 blocks a second on Arbitrum).
// Nearer, by hash, one at a time: a few reads, none wasted on a backend on another branch.
const BY_HASH_WITHIN = 16;
const ANCESTOR_BATCH = 16;
// Blocks below the run read in one look at most (by hash or by number).
const MAX_ANCESTOR_READS_PER_LOOK = 512;

/** A block read, with the receipts of the service's transactions in it. */
interface ReadBlock {
  number: number;
  hash: string;
  parentHash: string;
  receipts: Map<string, BlockReceipt>;
  /** When it was read, on the clock given to `advance`. */
  readAt: number;
}

/**
 * One network's chain as the payout tracker has read it, block by block: a run of consecutive
 * blocks, each the child of the one before it (its parent hash is that block's hash as read),
 * with the receipts of the service's own transactions in them. A receipt is kept only when it
 * names the block it was read for, so a receipt here is a positive proof that the transaction
 * was mined in that block of this run; its confirmations are the blocks of the run from it up to
 * the last one read. Nothing here is ever taken as proof that a transaction was not mined: a
 * transaction found in no block read is looked up as before (DESIGN.md section 4).
 */
export class BlocksRead {
  /** Consecutive, oldest first, each the child of the one before. */
  private blocks: ReadBlock[] = [];
  /** Each receipt kept, by transaction hash: the number of the block it was read in. */
  private readonly minedIn = new Map<string, number>();
  /** The heads read by the last looks, newest last. */
  private readonly heads: number[] = [];
  /** Looks in a row that were behind and read no block. */
  private stalled = 0;
  /** Looks in a row whose head was below the last block read. */
  private low = 0;
  /**
   * The hashes of the blocks below the run, read by hash from its first block's parent down:
   * `ancestors[i]` is the block `i + 1` below the first. Each is the parent of the one above, so
   * they are the run's chain as surely as the run is. Forgotten with the run's first block.
   */
  private ancestors: string[] = [];
  /** The parent hash of the lowest block of `ancestors` (or of the run's first block). */
  private ancestorsParent: string | null = null;
  /** Blocks read below the run this look, for `confirmed` (bounded as the run's reads are). */
  private ancestorReads = 0;
  /** What earlier runs proved (ProvenSegments), at most MAX_ANCESTORS hashes. */
  private readonly earlier = new ProvenSegments(MAX_ANCESTORS);

  /** `keep`: blocks held at most, more than a receipt needs to reach its confirmations. */
  constructor(private readonly keep: number) {}

  /** The last block read, if any. */
  get top(): number | null {
    return this.blocks.at(-1)?.number ?? null;
  }

  /**
   * Whether blocks known to exist (a head read lately) are still to be read: a transaction found
   * in no block read may be in them, and is better found there on a later look than looked up
   * one by one now (behind a load balancer, those lookups go to backends behind and end in
   * searches for the block that used the nonce). False with nothing read yet, or stuck.
   */
  get catchingUp(): boolean {
    return this.stalled < STALLED_LOOKS && this.belowKnownHead();
  }

  /**
   * Whether a transaction first stored at `storedAt` (the clock given to `advance`) is one the run
   * holds once mined: stored after the run's first block was read, it can only be mined in a later
   * block, which the run holds or is still to read. One stored before (in flight when the tracker
   * started, or when the run started again) may have been mined before the run's first block and
   * never be found in it. Nor is a receipt no node answered with its fee (an OP-stack receipt
   * without l1Fee): its block is read without it (EvmBlockReader.receiptsIn). Only a wait, bounded
   * by the replacement's, rests on this, never a decision.
   */
  mayHold(storedAt: number): boolean {
    const first = this.blocks[0];
    return first !== undefined && storedAt > first.readAt;
  }

  /**
   * Reads the blocks since the last one read, up to the node's head (one eth_blockNumber), each by
   * number and then the receipts of the service's transactions in it (`ours` says which hashes
   * are). A block the node does not have (a backend behind) ends the look; the next one reads it
   * again. A block that is not the child of the last one read (a reorg, or a backend on another
   * branch) sends the run back one block, to be read again. Throws ChainError; what was read
   * before the error is kept.
   */
  async advance(
    transport: EvmPayoutTransport,
    ours: (txHashes: string[]) => Promise<Set<string>>,
    now: () => number = Date.now,
  ): Promise<void> {
    this.ancestorReads = 0;
    const head = await transport.headBlockNumber();
    this.heads.push(head);
    if (this.heads.length > HEADS_REMEMBERED) this.heads.shift();
    const before = this.top;
    try {
      await this.readUpTo(transport, head, ours, now);
    } finally {
      const stuck = this.top === before && this.belowKnownHead();
      this.stalled = stuck ? this.stalled + 1 : 0;
    }
  }

  private async readUpTo(
    transport: EvmPayoutTransport,
    head: number,
    ours: (txHashes: string[]) => Promise<Set<string>>,
    now: () => number,
  ): Promise<void> {
    const last = this.blocks.at(-1);
    if (last && head < last.number) return this.behind(transport, head);
    this.low = 0;
    let next = last ? last.number + 1 : Math.max(0, head - BACKFILL_BLOCKS);
    if (head - next >= MAX_BEHIND) {
      this.restart();
      next = Math.max(0, head - BACKFILL_BLOCKS);
    } else if (this.stalled >= STALLED_LOOKS) {
      // Past the block that could not be read, at the head: whatever it holds is looked up.
      this.restart();
      next = head;
    }
    const headers: BlockHeader[] = [];
    for (let reads = 0; next <= head && reads < MAX_READS_PER_LOOK; reads++) {
      const header = await transport.blockHeader(next);
      if (!header) break;
      const parent = headers.at(-1) ?? this.blocks.at(-1);
      if (parent && header.parentHash !== parent.hash) {
        // Headers of this look that do not chain: two views of the chain; the next look reads on.
        if (headers.length) break;
        // The last block held is not this node's parent of the next: step back, read it again.
        this.dropFrom(parent.number);
        next = parent.number;
        continue;
      }
      headers.push(header);
      next += 1;
    }
    if (!headers.length) return;
    const wanted = await ours(headers.flatMap((header) => header.transactionHashes));
    for (const header of headers) {
      const mine = header.transactionHashes.filter((txHash) => wanted.has(txHash));
      // Without a receipt no URL answered with its fee: that one is looked up alone, the run reads on.
      const receipts = await transport.receiptsIn(header, mine);
      // The node lacks the block or a receipt of it now: read again, from this block, next look.
      if (!receipts) return;
      // After the header came back: the block existed by then.
      this.append(header, receipts, now());
    }
  }

  /**
   * The receipt of `txHash` read from a block of the run: mined there, with the run's blocks from
   * it to the last as confirmations. Null says only that no block read holds it.
   */
  mined(txHash: string): MinedLookup | null {
    const number = this.minedIn.get(txHash);
    const block = number === undefined ? undefined : this.at(number);
    const receipt = block?.receipts.get(txHash);
    const last = this.blocks.at(-1);
    if (!block || !receipt || !last) return null;
    return {
      state: 'mined',
      status: {
        blockNumber: block.number,
        blockHash: block.hash,
        succeeded: receipt.succeeded,
        confirmations: last.number - block.number + 1,
      },
      feeBaseUnits: receipt.feeBaseUnits,
    };
  }

  /**
   * The confirmations of a block named by one backend (a receipt looked up alone, the block that
   * used a nonce), counted along the run, if that block is the run's: the run holds its height
   * with its hash, or it is one of the run's ancestors, read by hash down from the run's first
   * block. Null when that is not proven: another hash at its height (a backend serving a block
   * that lost a fork, review r8, F2), a block above the last one read, a run empty, or ancestors
   * not read yet (a node lacking them, or this look's reads spent: later looks read on). Null
   * proves nothing either way; the caller decides nothing on that block.
   */
  async confirmed(
    transport: EvmPayoutTransport,
    block: { blockNumber: number; blockHash: string },
  ): Promise<number | null> {
    const first = this.blocks[0];
    const last = this.blocks.at(-1);
    if (!first || !last || block.blockNumber > last.number || block.blockNumber < 0) return null;
    const hash =
      block.blockNumber >= first.number
        ? this.at(block.blockNumber)?.hash
        : await this.ancestorAt(transport, block.blockNumber);
    return hash === block.blockHash.toLowerCase() ? last.number - block.blockNumber + 1 : null;
  }

  /**
   * The hash of the run's ancestor at `number` (below its first block), reading on down: by hash
   * near the run, by number in batches further down, and joining what an earlier run proved
   * where the walk reaches it with the same hash.
   */
  private async ancestorAt(transport: EvmPayoutTransport, number: number): Promise<string | null> {
    const first = this.blocks[0]!;
    const depth = first.number - number;
    if (depth > MAX_ANCESTORS) return null;
    while (this.ancestors.length < depth) {
      // The block the walk learns next, and its hash: the parent named by the lowest known.
      const next = first.number - this.ancestors.length - 1;
      const expected = this.ancestorsParent ?? first.parentHash;
      if (this.join(next, expected)) continue;
      if (this.ancestorReads >= MAX_ANCESTOR_READS_PER_LOOK) break;
      if (
        depth - this.ancestors.length >= BY_HASH_WITHIN &&
        (await this.readBatch(transport, next))
      ) {
        continue;
      }
      this.ancestorReads += 1;
      const header = await transport.blockHeaderByHash(expected, next);
      if (!header) return null;
      this.addAncestor(header.hash, header.parentHash);
    }
    return this.ancestors[depth - 1] ?? null;
  }

  /**
   * Reads the blocks from `next` down by number, all at once, and keeps those that chain: each
   * the hash its block above names as parent, from the lowest ancestor known down. A backend on
   * another branch or without them ends what is kept there. Whether any was kept.
   */
  private async readBatch(transport: EvmPayoutTransport, next: number): Promise<boolean> {
    const first = this.blocks[0]!;
    // Down to a segment's top at most, to join it there; inside one that did not join, one by one.
    if (this.earlier.inside(next)) return false;
    const below = this.earlier.topAtOrBelow(next);
    const lowest = Math.max(
      0,
      next - ANCESTOR_BATCH + 1,
      first.number - MAX_ANCESTORS,
      below !== null ? below + 1 : 0,
      next - (MAX_ANCESTOR_READS_PER_LOOK - this.ancestorReads) + 1,
    );
    if (lowest >= next) return false;
    const numbers = Array.from({ length: next - lowest + 1 }, (_, i) => next - i);
    this.ancestorReads += numbers.length;
    const headers = await Promise.all(numbers.map((number) => transport.blockHeader(number)));
    let kept = 0;
    for (const [i, header] of headers.entries()) {
      const expected = this.ancestorsParent ?? first.parentHash;
      if (!header || header.number !== numbers[i] || header.hash !== expected) break;
      this.addAncestor(header.hash, header.parentHash);
      kept += 1;
    }
    return kept > 0;
  }

  private addAncestor(hash: string, parentHash: string): void {
    this.ancestors.push(hash);
    this.ancestorsParent = parentHash;
  }

  /**
   * Joins what an earlier run proved where it holds block `next` with the hash `expected` (the
   * parent the run's lowest known block names): from there down, its hashes are the run's
   * ancestors. Segments the walk has passed, or that hold another hash there, are no help above.
   */
  private join(next: number, expected: string): boolean {
    const joined = this.earlier.join(next, expected);
    if (!joined) return false;
    const room = MAX_ANCESTORS - this.ancestors.length;
    for (const hash of joined.hashes.slice(0, room)) this.ancestors.push(hash);
    this.ancestorsParent = joined.hashes.length > room ? joined.hashes[room]! : joined.parent;
    return true;
  }

  /**
   * Starts the run again further up (MAX_BEHIND, a stall), keeping what it proved as a segment a
   * later walk may join: the chain did not change under it, the tracker only fell behind.
   */
  private restart(): void {
    const first = this.blocks[0];
    const last = this.blocks.at(-1);
    if (first && last) {
      const hashes = this.blocks.map((block) => block.hash).reverse();
      for (const hash of this.ancestors) hashes.push(hash);
      this.earlier.keep(last.number, hashes, this.ancestorsParent ?? first.parentHash);
    }
    this.dropFrom(0);
  }

  /**
   * The node's head is below the last block read: a backend behind the others (nothing new to
   * read), stalled, or on a fork that lost; or a chain that changed under us. One such head is no
   * sign of anything, and nothing is dropped on it: it wiped the run, receipts and all, behind a
   * backend 20 blocks behind, and cut it back at every look answered by a backend on a lost fork
   * (review r8, F1). A reorg shows without it: the next block read does not chain to the last one
   * held, and the run steps back (readUpTo). Only heads below the run for LOW_LOOKS looks in a
   * row (a chain restarted under us, or the only backend left) are read as a chain that changed:
   * then, as before, another hash at that height drops the run from there, and a head below every
   * block held drops it all.
   */
  private belowKnownHead(): boolean {
    const top = this.top;
    return top !== null && top < Math.max(...this.heads);
  }

  private async behind(transport: EvmPayoutTransport, head: number): Promise<void> {
    this.low += 1;
    if (this.low < LOW_LOOKS) return;
    // A chain that changed under us: what earlier runs proved is not kept for it.
    this.earlier.clear();
    const held = this.at(head);
    if (!held) {
      this.dropFrom(0);
      return;
    }
    const header = await transport.blockHeader(head);
    if (header && header.hash !== held.hash) this.dropFrom(head);
  }

  private append(header: BlockHeader, receipts: Map<string, BlockReceipt>, readAt: number): void {
    const { number, hash, parentHash } = header;
    if (!this.blocks.length) this.forgetAncestors();
    this.blocks.push({ number, hash, parentHash, receipts, readAt });
    for (const txHash of receipts.keys()) this.minedIn.set(txHash, number);
    while (this.blocks.length > this.keep) {
      const oldest = this.blocks.shift()!;
      this.forget(oldest);
      // The new first block's parent: its ancestors begin with it.
      this.ancestors.unshift(oldest.hash);
      if (this.ancestors.length === 1) this.ancestorsParent = oldest.parentHash;
      // The lowest dropped is the parent of the one above it.
      if (this.ancestors.length > MAX_ANCESTORS) this.ancestorsParent = this.ancestors.pop()!;
    }
  }

  /** Forgets the blocks from `number` up, and their receipts. */
  private dropFrom(number: number): void {
    while (this.blocks.length && this.blocks.at(-1)!.number >= number) {
      this.forget(this.blocks.pop()!);
    }
    // Another first block may not have the same parents.
    if (!this.blocks.length) this.forgetAncestors();
  }

  private forgetAncestors(): void {
    this.ancestors = [];
    this.ancestorsParent = null;
  }

  private forget(block: ReadBlock): void {
    for (const txHash of block.receipts.keys()) {
      if (this.minedIn.get(txHash) === block.number) this.minedIn.delete(txHash);
    }
  }

  private at(number: number): ReadBlock | undefined {
    const first = this.blocks[0];
    return first ? this.blocks[number - first.number] : undefined;
  }
}
