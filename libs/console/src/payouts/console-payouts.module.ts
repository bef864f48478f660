import { Module } from '@nestjs/common';
import { PayoutsModule } from '@app/payouts';
import { ConsolePayoutBatchesController } from './console-payout-batches.controller';
import { ConsolePayoutsController } from './console-payouts.controller';

/** The console's payout and batch creation. TwoFactorVerifier comes from the global ConsoleModule. */
@Module({
  imports: [PayoutsModule],
  controllers: [ConsolePayoutsController, ConsolePayoutBatchesController],
})
export class ConsolePayoutsModule {}
