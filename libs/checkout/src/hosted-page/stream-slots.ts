import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, ApiException, ErrorCode } from '@app/common';

/**
 * How many hosted-page streams each client address holds open in this process. A stream is a
 * connection, timers and a change subscription for up to 30 minutes; the per-minute page limit
 * counts how fast they are opened, not how many stay open, so this caps that
 * (RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT). Counted per process, where the connections are: a
 * count in Redis would outlive a process that died with its streams.
 */
@Injectable()
export class StreamSlots {
  private readonly perClient = new Map<string, number>();
  private opened = 0;
  private held = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get perClientLimit(): number {
    return this.config.rateLimits.checkoutStreamsPerClient;
  }

  /** Streams open now in this process. */
  get open(): number {
    return this.held;
  }

  /** Slots ever taken in this process (tests wait on it). */
  get taken(): number {
    return this.opened;
  }

  /** One of the client's slots, or null when it holds them all; the release may be called twice. */
  take(client: string): (() => void) | null {
    const count = this.perClient.get(client) ?? 0;
    if (count >= this.perClientLimit) return null;
    this.perClient.set(client, count + 1);
    this.opened += 1;
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }
}

// The page falls back to polling /state (every 3 s) when its stream is refused; a client that
// honours Retry-After retries at that pace too.
const RETRY_AFTER_SECONDS = 3;

/** The 429 of a client holding all its slots: the project's rate_limited envelope. */
export function tooManyStreams(limit: number): ApiException {
  return new ApiException(
    ErrorCode.RateLimited,
    `Too many requests: this address may hold ${limit} open streams at once. ` +
      `Retry after ${RETRY_AFTER_SECONDS} s, or poll the state.`,
    undefined,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}
