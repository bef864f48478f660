import { Module } from '@nestjs/common';
import { PayoutsModule } from '@app/payouts';
import { ConsolePayoutsController } from './console-payouts.controller';

/** The console's payout creation. TwoFactorVerifier comes from the global ConsoleModule. */
@Module({
  imports: [PayoutsModule],
  controllers: [ConsolePayoutsController],
})
export class ConsolePayoutsModule {}
