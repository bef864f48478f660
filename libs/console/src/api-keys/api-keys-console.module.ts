import { Module } from '@nestjs/common';
import { MerchantsModule } from '@app/auth';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { ApiKeysController } from './api-keys.controller';

/** The console's API keys page: list, create, roll and revoke the merchant's keys. */
@Module({
  imports: [MerchantsModule],
  controllers: [ApiKeysController],
  providers: [TwoFactorVerifier],
})
export class ApiKeysConsoleModule {}
