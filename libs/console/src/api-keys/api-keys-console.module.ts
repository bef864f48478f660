import { Module } from '@nestjs/common';
import { MerchantsModule } from '@app/auth';
import { ApiKeysController } from './api-keys.controller';

/**
 * The console's API keys page: list, create, roll and revoke the merchant's keys. Its
 * TwoFactorVerifier is the one the global ConsoleModule exports: one instance, one secret box.
 */
@Module({
  imports: [MerchantsModule],
  controllers: [ApiKeysController],
})
export class ApiKeysConsoleModule {}
