import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import Redis from 'ioredis';
import { once } from 'node:events';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LeasedCounters } from './leased-counters';

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

// A limiter must never make a request slow: a command waits at most this long, and while the
// connection is down commands fail at once instead of queueing.
const COMMAND_TIMEOUT_MS = 500;
const MAX_RECONNECT_DELAY_MS = 2_000;
// Start-up waits this long for the connection, so the first requests are counted; no longer.
const CONNECT_WAIT_MS = 2_000;

const ALLOWED: ThrottlerStorageRecord = {
  totalHits: 0,
  timeToExpire: 0,
  isBlocked: false,
  timeToBlockExpire: 0,
};

/**
 * Counters shared by every API process, in Redis (RATE_LIMIT_REDIS_URL, default REDIS_URL).
 * Fails open: while Redis is unreachable every request is allowed and one warning is logged per
 * outage, because refusing all traffic would turn a cache outage into an API outage.
 */
@Injectable()
export class RateLimitStorage implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly redis: Redis;
  private readonly counters: LeasedCounters;
  private degraded = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.redis = new Redis(config.rateLimits.redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      connectionName: 'rate-limits',
      // Closing while reconnecting would otherwise wait 2 s for a socket that is already gone.
      disconnectTimeout: COMMAND_TIMEOUT_MS,
    });
    this.redis.on('error', (error: Error) => this.failOpen(error));
    this.redis.on('ready', () => this.recovered());
    this.counters = new LeasedCounters(this.redis);
  }

  async onModuleInit(): Promise<void> {
    // A failed first connection is retried in the background; requests meanwhile are allowed.
    this.redis.connect().catch((error: Error) => this.failOpen(error));
    // Stops waiting at the first connection error too (`once` rejects on 'error').
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), CONNECT_WAIT_MS);
    await once(this.redis, 'ready', { signal: giveUp.signal }).catch(() => undefined);
    clearTimeout(timer);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const record = await this.counters.increment(
        `{${key}:${throttlerName}}`,
        ttl,
        limit,
        blockDuration,
      );
      this.recovered();
      return record;
    } catch (error) {
      this.failOpen(error as Error);
      return ALLOWED;
    }
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  private failOpen(error: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      { err: error.message },
      'Rate-limit storage unreachable: requests are not rate-limited until it is back.',
    );
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.log('Rate-limit storage reachable again: limits apply.');
  }
}
