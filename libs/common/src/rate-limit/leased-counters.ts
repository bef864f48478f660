import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type Redis from 'ioredis';

/**
 * Reserves up to ARGV[1] hits of a fixed window (KEYS[1], ARGV[2] ms from its first hit) with a
 * limit of ARGV[3]. The reservation that overflows the window blocks the bucket (KEYS[2]) for
 * ARGV[4] ms, after which the count starts again from zero. Answers {granted, ms the window or the
 * block has left, blocked 0/1, hits counted in the window including the granted ones}.
 */
const LEASE_SCRIPT = `
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then return {0, blockLeft, 1, tonumber(ARGV[3])} end
local want = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local total = redis.call('INCRBY', KEYS[1], want)
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
local before = total - want
local granted = math.max(0, math.min(want, limit - before))
if granted < want then
  redis.call('SET', KEYS[2], 1, 'PX', ARGV[4])
  redis.call('DEL', KEYS[1])
  return {granted, tonumber(ARGV[4]), 1, before + granted}
end
return {granted, left, 0, total}`;

// A process reserves at most this share of a window's limit at once: what it holds unused when
// the window ends is all other processes can lose (docs/rate-limits.md).
const MAX_LEASE_SHARE = 20;
// Local windows are forgotten once expired; swept when this many are held.
const SWEEP_AT = 10_000;

interface RedisWithLease extends Redis {
  rateLimitLease(
    hitsKey: string,
    blockKey: string,
    want: number,
    ttlMs: number,
    limit: number,
    blockMs: number,
  ): Promise<[granted: number, leftMs: number, blocked: 0 | 1, counted: number]>;
}

interface Window {
  /** Local clock (ms) at which the shared window, or the bucket's block, ends. */
  endsAt: number;
  /** Hits reserved for this process and not used yet. */
  reserved: number;
  /** Hits counted in the whole window, as of this process's last reservation, minus `reserved`. */
  used: number;
  /** The size of the next reservation: doubles while this process keeps using what it took. */
  nextLease: number;
  /** The bucket went over its limit: refused until `endsAt`. */
  blocked: boolean;
  lease?: Promise<void>;
}

/**
 * Fixed-window counters shared by every process in Redis, reserved in leases: a process takes one
 * hit from Redis at first, then twice as many each time it has used up what it took, up to a
 * twentieth of the limit, and counts them locally. A busy merchant then costs one Redis round trip
 * per many requests, a quiet one exactly one per request (the count is exact below a limit of 40).
 * The total never exceeds the limit; unused reservations of a process can refuse at most a
 * twentieth of the limit per process early.
 */
export class LeasedCounters {
  private readonly redis: RedisWithLease;
  private readonly windows = new Map<string, Window>();

  constructor(redis: Redis) {
    redis.defineCommand('rateLimitLease', { numberOfKeys: 2, lua: LEASE_SCRIPT });
    this.redis = redis as RedisWithLease;
  }

  /**
   * One hit of `key`: allowed while its window (`ttlMs` long) has counted at most `limit`; the
   * hit that goes over blocks the key for `blockMs`, in every process.
   */
  async increment(
    key: string,
    ttlMs: number,
    limit: number,
    blockMs: number,
  ): Promise<ThrottlerStorageRecord> {
    for (;;) {
      const now = Date.now();
      let window = this.windows.get(key);
      if (!window || (now >= window.endsAt && !window.lease)) {
        window = { endsAt: Infinity, reserved: 0, used: 0, nextLease: 1, blocked: false };
        this.remember(key, window, now);
      }
      if (window.reserved > 0) {
        window.reserved--;
        window.used++;
        return allowed(window.used, window.endsAt - now);
      }
      if (window.blocked) return refused(window.used, window.endsAt - now);
      // One reservation at a time per window; concurrent hits wait for it and try again.
      window.lease ??= this.lease(key, window, ttlMs, limit, blockMs).finally(() => {
        window.lease = undefined;
      });
      await window.lease;
    }
  }

  private async lease(
    key: string,
    window: Window,
    ttlMs: number,
    limit: number,
    blockMs: number,
  ): Promise<void> {
    const want = Math.max(1, Math.min(window.nextLease, Math.floor(limit / MAX_LEASE_SHARE)));
    const [granted, left, blocked, counted] = await this.redis.rateLimitLease(
      `${key}:hits`,
      `${key}:blocked`,
      want,
      ttlMs,
      limit,
      blockMs,
    );
    window.endsAt = Date.now() + left;
    window.reserved += granted;
    window.used = counted - window.reserved;
    window.nextLease = want * 2;
    window.blocked = blocked === 1;
  }

  private remember(key: string, window: Window, now: number): void {
    if (this.windows.size >= SWEEP_AT) {
      for (const [stale, held] of this.windows) {
        if (now >= held.endsAt && !held.lease) this.windows.delete(stale);
      }
    }
    this.windows.set(key, window);
  }
}

function allowed(hits: number, leftMs: number): ThrottlerStorageRecord {
  return { totalHits: hits, timeToExpire: seconds(leftMs), isBlocked: false, timeToBlockExpire: 0 };
}

function refused(hits: number, leftMs: number): ThrottlerStorageRecord {
  const left = seconds(leftMs);
  return { totalHits: hits + 1, timeToExpire: left, isBlocked: true, timeToBlockExpire: left };
}

/** Whole seconds left, at least 1: what Retry-After and X-RateLimit-Reset carry. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
