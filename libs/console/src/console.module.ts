import { Module } from '@nestjs/common';
import { ApiKeysConsoleModule } from './api-keys/api-keys-console.module';
import { RequestLogModule } from './request-log/request-log.module';
import { TwoFactorVerifier } from './two-factor/two-factor-verifier';

/** The merchant console's and the operator area's server side (docs/console.md). */
@Module({
  imports: [RequestLogModule, ApiKeysConsoleModule],
  providers: [TwoFactorVerifier],
  exports: [TwoFactorVerifier],
})
export class ConsoleModule {}
