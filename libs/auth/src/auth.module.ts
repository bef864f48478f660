import { Module } from '@nestjs/common';
import { RateLimitStorageModule } from '@app/common';
import { ApiKeyRevocations } from './api-key-revocations';
import { BearerAuthGuard } from './bearer-auth.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { MerchantsModule } from './merchants.module';
import { PermissionGuard } from './permission.guard';

/**
 * Authentication and authorization of API requests; the merchants and keys it reads come from
 * MerchantsModule. Also listens for key revocations, so only API processes hold that connection.
 */
@Module({
  imports: [MerchantsModule, RateLimitStorageModule],
  providers: [FailedAuthLimiter, BearerAuthGuard, PermissionGuard, ApiKeyRevocations],
  exports: [
    MerchantsModule,
    FailedAuthLimiter,
    BearerAuthGuard,
    PermissionGuard,
    ApiKeyRevocations,
  ],
})
export class AuthModule {}
