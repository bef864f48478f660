import { randomBase62 } from './base62';

describe('randomBase62', () => {
  it('returns exactly the requested number of base62 characters', () => {
    for (const length of [1, 17, 22, 64])
      expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });

  it('uses every character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const character of randomBase62(62 * 2000))
      counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(1600);
      expect(count).toBeLessThan(2400);
    }
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => randomBase62(22)));
    expect(ids.size).toBe(10_000);
  });
});
