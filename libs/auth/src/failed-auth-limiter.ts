import { Injectable } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';

const WINDOW_MS = 60_000;
const MAX_FAILURES_PER_WINDOW = 30;
const BLOCK_MS = 60_000;
const THROTTLER_NAME = 'failed-auth';

/**
 * Slows key guessing: a client address with too many failed authentications in a minute is refused
 * (429) for a minute, even with a valid key. Counts live in this process (see docs/decisions.md).
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly storage = new ThrottlerStorageService();

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  retryAfterSeconds(clientAddress: string): number {
    const record = this.storage.storage.get(this.key(clientAddress));
    if (!record?.isBlocked) return 0;
    return Math.max(Math.ceil((record.blockExpiresAt - Date.now()) / 1000), 0);
  }

  async recordFailure(clientAddress: string): Promise<void> {
    await this.storage.increment(
      this.key(clientAddress),
      WINDOW_MS,
      // The storage blocks once hits exceed the limit; block right at the maximum instead.
      MAX_FAILURES_PER_WINDOW - 1,
      BLOCK_MS,
      THROTTLER_NAME,
    );
  }

  onApplicationShutdown(): void {
    this.storage.onApplicationShutdown();
  }

  private key(clientAddress: string): string {
    return `${THROTTLER_NAME}:${clientAddress}`;
  }
}
