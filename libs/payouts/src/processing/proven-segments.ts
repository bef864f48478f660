/**
 * Hashes a run proved before it started again (MAX_BEHIND, a stall): its blocks and ancestors,
 * `hashes[i]` the block `top - i`, each the parent of the one above, `parent` the parent hash of
 * the lowest. Proof of nothing alone: they count only once a later run's walk down reaches one of
 * them with the same hash (the hash its block above names as parent), and then all below it do.
 */
interface Segment {
  top: number;
  hashes: string[];
  parent: string;
}

/**
 * What earlier runs of BlocksRead proved, highest first (review r9a, N1): a reset threw their
 * walk away, and a payout mined before it was never proven on a fast chain. At most `limit`
 * hashes in all, the lowest dropped first.
 */
export class ProvenSegments {
  private segments: Segment[] = [];

  constructor(private readonly limit: number) {}

  /** Keeps a run's proof, above every earlier one (a run starts again further up). */
  keep(top: number, hashes: string[], parent: string): void {
    this.segments.unshift({ top, hashes, parent });
    let room = this.limit;
    const kept: Segment[] = [];
    for (const segment of this.segments) {
      if (room <= 0) break;
      if (segment.hashes.length > room) {
        kept.push({
          top: segment.top,
          hashes: segment.hashes.slice(0, room),
          parent: segment.hashes[room]!,
        });
      } else kept.push(segment);
      room -= segment.hashes.length;
    }
    this.segments = kept;
  }

  /** A chain that changed under us: nothing earlier runs proved holds for it. */
  clear(): void {
    this.segments = [];
  }

  /** Whether block `number` lies inside a segment (below its top) that the walk has not joined. */
  inside(number: number): boolean {
    return this.segments.some(
      (segment) => segment.top >= number && segment.top - segment.hashes.length < number,
    );
  }

  /** The top of the highest segment at or below `number`, if any: a batch read stops above it. */
  topAtOrBelow(number: number): number | null {
    return this.segments.find((segment) => segment.top <= number)?.top ?? null;
  }

  /**
   * Where a segment holds block `next` with the hash `expected` (the parent the walk's lowest
   * known block names): its hashes from there down, and the parent of its lowest; the segments it
   * passed and that one are then spent. Segments the walk has passed, or that hold another hash
   * there, are no help above. Null when none joins.
   */
  join(next: number, expected: string): { hashes: string[]; parent: string } | null {
    // Passed wholly: the walk goes down only.
    this.segments = this.segments.filter((segment) => segment.top - segment.hashes.length < next);
    const index = this.segments.findIndex(
      (segment) => segment.top >= next && segment.hashes[segment.top - next] === expected,
    );
    if (index < 0) return null;
    const segment = this.segments[index]!;
    this.segments = this.segments.slice(index + 1);
    return { hashes: segment.hashes.slice(segment.top - next), parent: segment.parent };
  }
}
