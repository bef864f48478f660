import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { MerchantEntity } from './merchant.entity';
import { MerchantsService } from './merchants.service';

/**
 * Merchants and their API keys: the database only. Apart from AuthModule (which adds the bearer
 * guard and its Redis-backed failed-attempt limiter) so the operator CLI can manage merchants
 * without opening a Redis connection it has no use for.
 */
@Module({
  imports: [TypeOrmModule.forFeature([MerchantEntity, ApiKeyEntity])],
  providers: [MerchantsService, ApiKeysService],
  exports: [MerchantsService, ApiKeysService],
})
export class MerchantsModule {}
