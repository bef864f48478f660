import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '@app/idempotency';
import { SubMerchantEntity } from './sub-merchant.entity';
import { SubMerchantsController } from './sub-merchants.controller';
import { SubMerchantsRepository } from './sub-merchants.repository';
import { SubMerchantsService } from './sub-merchants.service';

@Module({
  imports: [TypeOrmModule.forFeature([SubMerchantEntity]), IdempotencyModule],
  controllers: [SubMerchantsController],
  providers: [SubMerchantsRepository, SubMerchantsService],
  exports: [SubMerchantsService],
})
export class SubMerchantsModule {}
