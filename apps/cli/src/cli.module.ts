import { Module } from '@nestjs/common';
import { MerchantsModule } from '@app/auth';
import { CheckoutModule } from '@app/checkout';
import { AppConfigModule, queueRootModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { PayoutProcessingModule } from '@app/payouts';
import { RefundPayoutsModule } from '@app/refunds';
import { TreasuryModule } from '@app/treasury';

/**
 * What the operator CLI needs: configuration, the database and the domain services. Payouts need
 * the queues (an approval enqueues the payout's send job), and wallets:status the hot wallet
 * keys (HOT_WALLETS_FILE), as the worker does. Redis is opened only by a command that enqueues:
 * the others must work, and end at once, while it is down (no rate limiter, lazy queues).
 */
@Module({
  imports: [
    AppConfigModule,
    DatabaseModule,
    queueRootModule({ connectOnFirstUse: true }),
    MerchantsModule,
    CheckoutModule,
    PayoutProcessingModule,
    // A refund's payout rejected here updates its refund (docs/treasury.md, Refunds).
    RefundPayoutsModule,
    // treasury:* commands: sweeps (with the worker's keys) and reconciliation.
    TreasuryModule,
  ],
})
export class CliModule {}
