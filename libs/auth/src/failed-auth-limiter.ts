import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig, RATE_LIMIT_STORAGE } from '@app/common';

const WINDOW_MS = 60_000;
const BLOCK_MS = 60_000;
const THROTTLER_NAME = 'failed-auth';

/**
 * Slows key guessing: a client address with more than RATE_LIMIT_FAILED_AUTH_PER_MINUTE failed
 * authentications in a minute gets 429 instead of 401 for a minute. Only failed attempts are
 * refused: a valid key always authenticates, so no client can lock out a merchant sharing its
 * address (or, without TRUST_PROXY, its load balancer). Counts are shared by every API process in
 * Redis and fail open with the other limits (docs/rate-limits.md).
 */
@Injectable()
export class FailedAuthLimiter {
  constructor(
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: ThrottlerStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts one failed attempt; returns the seconds the address must wait, or 0. */
  async recordFailure(clientAddress: string): Promise<number> {
    const record = await this.storage.increment(
      `failed-auth:${this.config.env}:${clientAddress}`,
      WINDOW_MS,
      this.config.rateLimits.failedAuthPerMinute,
      BLOCK_MS,
      THROTTLER_NAME,
    );
    return record.isBlocked ? Math.max(record.timeToBlockExpire, 1) : 0;
  }
}
