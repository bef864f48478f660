import { Module } from '@nestjs/common';
import { CheckoutModule } from '@app/checkout';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '@app/payouts';
import { RefundEvents } from './refund-events';
import { RefundPayoutSync } from './refund-payout-sync';
import { RefundReversalGuard } from './refund-reversal-guard';
import { RefundsRepository } from './refunds.repository';

/**
 * Refunds follow their payouts, and a reorg that reverses a session's payment cancels its refunds
 * not signed yet that it no longer covers (RefundReversalGuard). Every process that changes payouts (API, worker, CLI) imports it:
 * a refund's payout changing status where it is missing is refused, never left unfollowed.
 */
@Module({
  imports: [PayoutsModule, EventOutboxModule, LedgerModule, CheckoutModule],
  providers: [RefundsRepository, RefundEvents, RefundPayoutSync, RefundReversalGuard],
  exports: [RefundsRepository, RefundEvents],
})
export class RefundPayoutsModule {}
