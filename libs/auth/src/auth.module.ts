import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitStorageModule } from '@app/common';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { BearerAuthGuard } from './bearer-auth.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { MerchantEntity } from './merchant.entity';
import { MerchantsService } from './merchants.service';

@Module({
  imports: [TypeOrmModule.forFeature([MerchantEntity, ApiKeyEntity]), RateLimitStorageModule],
  providers: [MerchantsService, ApiKeysService, FailedAuthLimiter, BearerAuthGuard],
  exports: [MerchantsService, ApiKeysService, FailedAuthLimiter, BearerAuthGuard],
})
export class AuthModule {}
