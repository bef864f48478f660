import type { ExecutionContext } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { clientAddressOf } from './client-address';

/** Whose requests share a counter, and how many the counter allows per window. */
export interface RateLimitBucket {
  /** Part of the Redis key: environment, then merchant and kind, or page and client address. */
  tracker: string;
  limit: number;
  windowMs: number;
  /** Completes "Too many requests: ..." in the 429 message. */
  description: string;
}

/** The fields of an Express request the buckets read; `merchant` is set by the bearer guard. */
export interface RateLimitedRequest {
  method: string;
  path: string;
  ip?: string;
  merchant?: { merchantId: string; livemode: boolean };
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;

/**
 * Sorts each request into its bucket: authenticated API calls per merchant and environment (reads
 * and writes apart, so a polling loop cannot starve session creation), the public pages per client
 * address, and anything else (health, metrics) not at all.
 */
export class RateLimitBuckets {
  // The throttler asks for the limit, window and tracker separately: sort each request once.
  private readonly sorted = new WeakMap<object, RateLimitBucket | null>();

  constructor(
    private readonly config: Pick<AppConfig, 'env' | 'rateLimits'>,
    private readonly clientAddressPaths: readonly string[],
    private readonly signInPaths: readonly string[] = [],
  ) {}

  forContext(context: ExecutionContext): RateLimitBucket | null {
    return this.forRequest(context.switchToHttp().getRequest<RateLimitedRequest>());
  }

  forRequest(request: RateLimitedRequest): RateLimitBucket | null {
    let bucket = this.sorted.get(request);
    if (bucket === undefined) {
      bucket = this.sort(request);
      this.sorted.set(request, bucket);
    }
    return bucket;
  }

  private sort(request: RateLimitedRequest): RateLimitBucket | null {
    const { env, rateLimits } = this.config;
    // Before the merchant: these routes are counted per address whoever is (half) signed in.
    if (this.signInPaths.some((prefix) => isUnder(request.path, prefix))) {
      const limit = rateLimits.consoleSignInPerMinute;
      return {
        tracker: `${env}:sign-in:${clientAddressOf(request)}`,
        limit,
        windowMs: MINUTE_MS,
        description: `this address may make ${limit} sign-in requests per minute`,
      };
    }
    if (request.merchant) {
      const { merchantId, livemode } = request.merchant;
      const reads = READ_METHODS.has(request.method);
      const limit = reads ? rateLimits.readsPerSecond : rateLimits.writesPerSecond;
      const kind = reads ? 'reads' : 'writes';
      return {
        tracker: `${env}:merchant:${merchantId}:${livemode ? 'live' : 'test'}:${kind}`,
        limit,
        windowMs: SECOND_MS,
        description: `this account may make ${limit} ${kind.slice(0, -1)} requests per second`,
      };
    }
    if (this.clientAddressPaths.some((prefix) => isUnder(request.path, prefix))) {
      const limit = rateLimits.checkoutPagePerMinute;
      return {
        tracker: `${env}:page:${clientAddressOf(request)}`,
        limit,
        windowMs: MINUTE_MS,
        description: `this address may make ${limit} page requests per minute`,
      };
    }
    return null;
  }
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
