import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { LeasedCounters } from '../../libs/common/src/rate-limit/leased-counters';
import { TEST_REDIS_URL } from '../setup/test-database';

const SECOND = 1_000;
const MINUTE = 60_000;

/** A process's counters on the test Redis, with its reservations (round trips) counted. */
function processCounters(clients: Redis[]) {
  const redis = new Redis(TEST_REDIS_URL);
  clients.push(redis);
  const counters = new LeasedCounters(redis);
  const leased = redis as unknown as { rateLimitLease: (...args: unknown[]) => Promise<unknown> };
  const original = leased.rateLimitLease.bind(redis);
  const stats = { roundTrips: 0 };
  leased.rateLimitLease = (...args: unknown[]) => {
    stats.roundTrips++;
    return original(...args);
  };
  return { counters, stats };
}

const freshKey = () => `{rate-limit:test:${randomUUID()}:default}`;

async function hits(counters: LeasedCounters, key: string, count: number, limit: number) {
  return Promise.all(
    Array.from({ length: count }, () => counters.increment(key, MINUTE, limit, MINUTE)),
  );
}

describe('Rate-limit counters reserved in leases', () => {
  const clients: Redis[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('counts a small limit exactly, one round trip per hit, and blocks past it', async () => {
    const { counters, stats } = processCounters(clients);
    const key = freshKey();
    const records = [];
    for (let hit = 0; hit < 4; hit++)
      records.push(await counters.increment(key, SECOND, 3, MINUTE));
    expect(records.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(stats.roundTrips).toBe(4);
    // The hit that went over blocks the key for the block duration, not the rest of the window.
    expect(records[3].timeToBlockExpire).toBeGreaterThan(50);
  });

  it('serves a busy key from few reservations and never allows more than the limit', async () => {
    const { counters, stats } = processCounters(clients);
    const key = freshKey();
    const records = await hits(counters, key, 1_000, 1_000_000);
    expect(records.every((record) => !record.isBlocked)).toBe(true);
    // 1 + 2 + 4 + ... + 512 = 1,023: ten reservations for a thousand hits.
    expect(stats.roundTrips).toBeLessThanOrEqual(10);
    expect(Math.max(...records.map((record) => record.totalHits))).toBe(1_000);
  });

  it('holds one limit across processes and refuses early by at most a twentieth per process', async () => {
    const first = processCounters(clients);
    const second = processCounters(clients);
    const key = freshKey();
    const limit = 200;
    const records = (
      await Promise.all([
        hits(first.counters, key, 300, limit),
        hits(second.counters, key, 300, limit),
      ])
    ).flat();
    const allowed = records.filter((record) => !record.isBlocked).length;
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - 2 * (limit / 20));
    // Once over, every process refuses, for the block's duration.
    for (const { counters } of [first, second]) {
      const record = await counters.increment(key, MINUTE, limit, MINUTE);
      expect(record.isBlocked).toBe(true);
      expect(record.timeToBlockExpire).toBeGreaterThan(50);
    }
    expect(first.stats.roundTrips + second.stats.roundTrips).toBeLessThan(60);
  });

  it('starts counting again once the window ends', async () => {
    const { counters } = processCounters(clients);
    const key = freshKey();
    const windowMs = 300;
    expect((await counters.increment(key, windowMs, 2, windowMs)).isBlocked).toBe(false);
    expect((await counters.increment(key, windowMs, 2, windowMs)).isBlocked).toBe(false);
    // Waits for the window to pass (a condition, however slow the machine).
    let record = await counters.increment(key, windowMs, 2, windowMs);
    while (record.isBlocked) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await counters.increment(key, windowMs, 2, windowMs);
    }
    expect(record.totalHits).toBe(1);
  });
});
