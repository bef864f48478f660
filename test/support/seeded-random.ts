/**
 * A seeded pseudo-random generator (mulberry32) for randomized suites: the seed is printed, and
 * the same seed replays the same choices (the chain's timing still varies from run to run).
 */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** The seed of TREASURY_SEED-like variable `name` when set, else a new one. */
  static fromEnvironment(name: string): SeededRandom {
    const given = process.env[name];
    const seed = given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
    if (!Number.isSafeInteger(seed)) throw new Error(`${name} must be an integer, got ${given}`);
    return new SeededRandom(seed);
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
}
