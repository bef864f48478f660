import { Module } from '@nestjs/common';
import { CheckoutModule } from '@app/checkout';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { PayoutsModule } from '@app/payouts';
import { RefundCancellation } from './refund-cancellation';
import { RefundDestinationLinks } from './refund-destination-links';
import { RefundEvents } from './refund-events';
import { RefundExpiry } from './refund-expiry';
import { RefundPayoutSync } from './refund-payout-sync';
import { RefundReversalGuard } from './refund-reversal-guard';
import { RefundTransferReorgs } from './refund-transfer-reorgs';
import { RefundsRepository } from './refunds.repository';

/**
 * Refunds follow their payouts, a reorg that reverses a session's payment cancels its refunds
 * not signed yet that it no longer covers (RefundReversalGuard), one that reverses a refunded
 * unmatched transfer cancels its refund or books the loss (RefundTransferReorgs), and refunds waiting too long for
 * an address expire (RefundExpiry, run by the worker's maintenance queue). Every process that
 * changes payouts (API, worker, CLI) imports it: a refund's payout changing status where it is
 * missing is refused, never left unfollowed.
 */
@Module({
  imports: [PayoutsModule, EventOutboxModule, LedgerModule, CheckoutModule],
  providers: [
    RefundsRepository,
    RefundEvents,
    RefundCancellation,
    RefundPayoutSync,
    RefundReversalGuard,
    RefundTransferReorgs,
    RefundExpiry,
    RefundDestinationLinks,
  ],
  exports: [
    RefundsRepository,
    RefundEvents,
    RefundCancellation,
    RefundExpiry,
    RefundDestinationLinks,
  ],
})
export class RefundPayoutsModule {}
