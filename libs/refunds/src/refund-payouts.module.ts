import { Module } from '@nestjs/common';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '@app/payouts';
import { RefundEvents } from './refund-events';
import { RefundPayoutSync } from './refund-payout-sync';
import { RefundsRepository } from './refunds.repository';

/**
 * Refunds follow their payouts. Every process that changes payouts (API, worker, CLI) imports it:
 * a refund's payout changing status where it is missing is refused, never left unfollowed.
 */
@Module({
  imports: [PayoutsModule, EventOutboxModule, LedgerModule],
  providers: [RefundsRepository, RefundEvents, RefundPayoutSync],
  exports: [RefundsRepository, RefundEvents],
})
export class RefundPayoutsModule {}
