import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { QUEUES } from '@app/common';
import { IdempotencyModule } from '@app/idempotency';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { SubMerchantsModule } from '@app/sub-merchants';
import { PayoutEvents } from './payout-events';
import { PayoutQueue } from './payout-queue';
import { PayoutsController } from './payouts.controller';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';
import { PayoutDestination } from './rules/payout-destination';
import { PayoutRules } from './rules/payout-rules';
import { PayoutReviews } from './payout-reviews';
import { PayoutTermsService } from './payout-terms';
import { PayoutQuoteService } from './quote/payout-quote.service';
import { PayoutBatchesController } from './batches/payout-batches.controller';
import { PayoutBatchesRepository } from './batches/payout-batches.repository';
import { PayoutBatchesService } from './batches/payout-batches.service';

/** Payout creation, reads and reviews. Needs a Bull root module (see queueRootModule) in the app. */
@Module({
  imports: [
    BullModule.registerQueue({
      name: QUEUES.payouts,
      // Send jobs take well under a second: a worker that died holding one is noticed within
      // seconds instead of Bull's default 30 s (the lock is renewed while a job runs).
      settings: { lockDuration: 10_000, stalledInterval: 5_000 },
    }),
    ChainsModule,
    IdempotencyModule,
    LedgerModule,
    SubMerchantsModule,
    EventOutboxModule,
  ],
  controllers: [PayoutsController, PayoutBatchesController],
  providers: [
    PayoutsRepository,
    PayoutRules,
    PayoutDestination,
    PayoutTermsService,
    PayoutQuoteService,
    PayoutBatchesRepository,
    PayoutBatchesService,
    PayoutQueue,
    PayoutsService,
    PayoutReviews,
    PayoutEvents,
  ],
  exports: [
    PayoutsService,
    PayoutBatchesService,
    PayoutsRepository,
    PayoutRules,
    PayoutQueue,
    PayoutReviews,
    PayoutEvents,
    BullModule,
  ],
})
export class PayoutsModule {}
