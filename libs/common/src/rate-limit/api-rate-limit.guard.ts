import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import { RateLimitBuckets } from './rate-limit-buckets';

/**
 * @nestjs/throttler's guard with the project's 429: `rate_limited` in the error envelope, with
 * `Retry-After`. Runs after the bearer guard, which tells it the merchant. Sets X-RateLimit-Limit,
 * X-RateLimit-Remaining and X-RateLimit-Reset (seconds) on every limited route.
 */
@Injectable()
export class ApiRateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(RateLimitBuckets) private readonly buckets: RateLimitBuckets,
  ) {
    super(options, storage, reflector);
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(detail.timeToBlockExpire, 1);
    const description = this.buckets.forContext(context)?.description ?? 'limit reached';
    throw new ApiException(
      ErrorCode.RateLimited,
      `Too many requests: ${description}. Retry after ${retryAfter} s.`,
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  }
}

/** The throttler's settings: one counter per request's bucket, in the shared storage. */
export function apiThrottlerOptions(buckets: RateLimitBuckets): ThrottlerModuleOptions {
  const bucketOf = (context: ExecutionContext) => {
    const bucket = buckets.forContext(context);
    if (!bucket) throw new Error('A request without a rate-limit bucket was not skipped');
    return bucket;
  };
  return {
    skipIf: (context) => buckets.forContext(context) === null,
    throttlers: [
      {
        limit: (context) => bucketOf(context).limit,
        ttl: (context) => bucketOf(context).windowMs,
      },
    ],
    getTracker: (_request, context) => bucketOf(context).tracker,
    generateKey: (_context, tracker) => `rate-limit:${tracker}`,
  };
}
