import { Module } from '@nestjs/common';
import { PreparedStatements } from '@app/database';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';

@Module({
  providers: [IdempotencyKeysRepository, IdempotencyService, PreparedStatements],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
