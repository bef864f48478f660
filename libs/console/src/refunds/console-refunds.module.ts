import { Module } from '@nestjs/common';
import { RefundsModule } from '@app/refunds';
import { ConsoleRefundsController } from './console-refunds.controller';

/** The console's refund creation. TwoFactorVerifier comes from the global ConsoleModule. */
@Module({
  imports: [RefundsModule],
  controllers: [ConsoleRefundsController],
})
export class ConsoleRefundsModule {}
