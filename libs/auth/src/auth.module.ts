import { Module } from '@nestjs/common';
import { RateLimitStorageModule } from '@app/common';
import { BearerAuthGuard } from './bearer-auth.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { MerchantsModule } from './merchants.module';

/** Authentication of API requests; the merchants and keys it reads come from MerchantsModule. */
@Module({
  imports: [MerchantsModule, RateLimitStorageModule],
  providers: [FailedAuthLimiter, BearerAuthGuard],
  exports: [MerchantsModule, FailedAuthLimiter, BearerAuthGuard],
})
export class AuthModule {}
