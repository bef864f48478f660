import { Module } from '@nestjs/common';
import { RequestLogModule } from './request-log/request-log.module';
import { TwoFactorVerifier } from './two-factor/two-factor-verifier';

/** The merchant console's and the operator area's server side (docs/console.md). */
@Module({
  imports: [RequestLogModule],
  providers: [TwoFactorVerifier],
  exports: [TwoFactorVerifier],
})
export class ConsoleModule {}
