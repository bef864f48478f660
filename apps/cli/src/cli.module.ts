import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { CheckoutModule } from '@app/checkout';
import { AppConfigModule, queueRootModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { PayoutsModule } from '@app/payouts';

/**
 * What the operator CLI needs: configuration, the database and the domain services. Payouts need
 * the queues: an approval enqueues the payout's send job.
 */
@Module({
  imports: [
    AppConfigModule,
    DatabaseModule,
    queueRootModule(),
    AuthModule,
    CheckoutModule,
    PayoutsModule,
  ],
})
export class CliModule {}
