import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { IdempotencyModule } from '@app/idempotency';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '@app/payouts';
import { PayoutDestination } from '@app/payouts/rules/payout-destination';
import { SubMerchantsModule } from '@app/sub-merchants';
import { HostedRefundDestinationController } from './hosted-refund-destination.controller';
import { RefundCreation } from './refund-creation';
import { RefundDestinations } from './refund-destinations';
import { RefundPayouts } from './refund-payouts';
import { RefundPayoutsModule } from './refund-payouts.module';
import { RefundSourcesRepository } from './refund-sources.repository';
import { RefundsController } from './refunds.controller';
import { RefundsService } from './refunds.service';

/** The refunds API and the hosted page's refund form (the API process). */
@Module({
  imports: [
    ChainsModule,
    IdempotencyModule,
    LedgerModule,
    PayoutsModule,
    SubMerchantsModule,
    RefundPayoutsModule,
  ],
  controllers: [RefundsController, HostedRefundDestinationController],
  providers: [
    RefundsService,
    RefundCreation,
    RefundSourcesRepository,
    RefundDestinations,
    RefundPayouts,
    PayoutDestination,
  ],
  // The console's refund route (libs/console) creates through the same service.
  exports: [RefundsService],
})
export class RefundsModule {}
