import { DynamicModule, Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { apiThrottlerOptions, ApiRateLimitGuard } from './api-rate-limit.guard';
import { RateLimitBuckets } from './rate-limit-buckets';
import { RATE_LIMIT_STORAGE, RateLimitStorage } from './rate-limit-storage';

/** The shared, fail-open counters (Redis); also used by the failed-authentication limiter. */
@Module({
  providers: [RateLimitStorage, { provide: RATE_LIMIT_STORAGE, useExisting: RateLimitStorage }],
  exports: [RATE_LIMIT_STORAGE],
})
export class RateLimitStorageModule {}

export interface ApiRateLimitOptions {
  /** Public routes limited per client address (the hosted checkout page); other public routes
   * (health, metrics) are not limited. */
  clientAddressPaths: string[];
  /** The console's routes before a full session (sign-in and the like), limited per client
   * address with their own, lower limit (RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE). */
  signInPaths?: string[];
}

/**
 * Per-merchant limits for the API and per-address limits for the public pages. Provides
 * ApiRateLimitGuard: register it as a global guard AFTER the bearer guard.
 */
@Module({})
export class RateLimitModule {
  static forApi(options: ApiRateLimitOptions): DynamicModule {
    return {
      module: RateLimitModule,
      imports: [RateLimitStorageModule],
      providers: [
        {
          provide: RateLimitBuckets,
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) =>
            new RateLimitBuckets(config, options.clientAddressPaths, options.signInPaths),
        },
        {
          provide: getOptionsToken(),
          inject: [RateLimitBuckets],
          useFactory: apiThrottlerOptions,
        },
        { provide: getStorageToken(), useExisting: RATE_LIMIT_STORAGE },
        ApiRateLimitGuard,
      ],
      exports: [ApiRateLimitGuard],
    };
  }
}
