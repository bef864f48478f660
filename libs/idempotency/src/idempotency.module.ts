import { Module } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';

@Module({
  providers: [IdempotencyKeysRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
