import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { QUEUES } from '@app/common';
import { IdempotencyModule } from '@app/idempotency';
import { LedgerModule } from '@app/ledger';
import { SubMerchantsModule } from '@app/sub-merchants';
import { PayoutQueue } from './payout-queue';
import { PayoutsController } from './payouts.controller';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';
import { PayoutDestination } from './rules/payout-destination';
import { PayoutRules } from './rules/payout-rules';
import { PayoutReviews } from './payout-reviews.service';

/** Payout creation, reads and reviews. Needs a Bull root module (see queueRootModule) in the app. */
@Module({
  imports: [
    BullModule.registerQueue({ name: QUEUES.payouts }),
    ChainsModule,
    IdempotencyModule,
    LedgerModule,
    SubMerchantsModule,
  ],
  controllers: [PayoutsController],
  providers: [
    PayoutsRepository,
    PayoutRules,
    PayoutDestination,
    PayoutQueue,
    PayoutsService,
    PayoutReviews,
  ],
  exports: [PayoutsRepository, PayoutRules, PayoutQueue, PayoutReviews, BullModule],
})
export class PayoutsModule {}
