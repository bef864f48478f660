import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { ReversedPayment, ReversedPaymentListener, SessionSettlementService } from '@app/checkout';
import { RefundCancellation } from './refund-cancellation';
import { RefundsRepository } from './refunds.repository';

export const REVERSED_PAYMENT_REASON =
  'Canceled: the payment it refunded was reversed by a chain reorganization.';

/**
 * A reorg took back part of a session's payment: its refunds may now promise more than it still
 * received. In the settling transaction (the session's row lock held), the newest refunds nothing
 * has signed (`requires_destination`, or `Pending` with an unclaimed payout) are canceled, their
 * holds released and `refund.canceled` written, until the live refunds fit what is received.
 * A refund already signed is left to run: it is on the chain, an operator reconciles it.
 * Lock order: session, payouts, refunds, balance rows. Every path that locks a refund and its
 * payout takes the payout first (cancel, the worker's `RefundPayoutSync`, `RefundTransferReorgs`,
 * `cancelUnsigned` here), and the refund before balance rows (cancel and expiry post the release
 * under the refund's lock), except the worker, which posts its payout's completion (balance rows)
 * before locking that payout's refund: its payout lock, taken first, keeps the rest out. Nobody
 * takes a session's lock after a payout's or a refund's. Settlement posts the reversal (balance
 * rows: `deposits:`, `fees:`, `merchant:`) before `paymentsReversed`, so the payouts and then the
 * refunds are locked before that, in `lockBeforeReversal`; `cancelUnsigned` finds them held.
 */
@Injectable()
export class RefundReversalGuard implements ReversedPaymentListener, OnModuleInit {
  private readonly logger = new Logger(RefundReversalGuard.name);

  constructor(
    private readonly settlement: SessionSettlementService,
    private readonly refunds: RefundsRepository,
    private readonly cancellation: RefundCancellation,
  ) {}

  onModuleInit(): void {
    this.settlement.followReversalsWith(this);
  }

  /**
   * Settlement's step before its ledger statement: the sessions' live refunds' payouts, then the
   * refunds (a `requires_destination` one has no payout), each in id order. Payout before refund:
   * the order cancel and the worker take them in (review r5, N1).
   */
  async lockBeforeReversal(manager: EntityManager, sessionIds: string[]): Promise<void> {
    await this.refunds.lockPayoutsOfSessions(manager, sessionIds);
    await this.refunds.lockLiveRefundsOfSessions(manager, sessionIds);
  }

  async paymentsReversed(manager: EntityManager, reversed: ReversedPayment[]): Promise<void> {
    for (const { sessionId, received } of reversed) {
      const live = await this.refunds.liveRefundsOfSession(manager, sessionId);
      let excess = live
        .reduce((sum, refund) => sum.plus(refund.amount), new Decimal(0))
        .minus(received);
      for (const refund of live) {
        if (excess.lessThanOrEqualTo(0)) break;
        // One canceled, or found no longer live under its lock (canceled, expired or failed since
        // `live` was read), no longer counts: the refunds older than it may then stay.
        if ((await this.cancelUnsigned(manager, refund.id)) !== 'signed') {
          excess = excess.minus(refund.amount);
        }
      }
      if (excess.greaterThan(0)) {
        this.logger.warn(
          `Session ${sessionId}: a reorg reversed part of its payment and its refunds already signed exceed what it still received by ${excess.toFixed()}.`,
        );
      }
    }
  }

  /**
   * Cancels the refund if nothing has signed it ('canceled'); 'gone' when it is Failed or Canceled
   * by now, 'signed' when it is on its way or Completed.
   */
  private async cancelUnsigned(
    manager: EntityManager,
    refundId: string,
  ): Promise<'canceled' | 'gone' | 'signed'> {
    const payout = await this.refunds.lockPayout(manager, refundId);
    const refund = await this.refunds.lock(manager, refundId);
    if (!refund) throw new Error(`Refund ${refundId} not found`);
    if (refund.status === 'Failed' || refund.status === 'Canceled') return 'gone';
    const unsigned =
      refund.status === 'requires_destination' ||
      (refund.status === 'Pending' && payout?.status === 'Pending');
    if (!unsigned) return 'signed';
    await this.cancellation.cancelLocked(
      manager,
      refund,
      payout?.id ?? null,
      REVERSED_PAYMENT_REASON,
    );
    return 'canceled';
  }
}
