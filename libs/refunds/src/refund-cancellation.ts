import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LedgerService } from '@app/ledger';
import { PayoutsRepository } from '@app/payouts';
import { RefundEvents } from './refund-events';
import { refundReleaseEntry } from './refund-ledger';
import { RefundRecord } from './refund.types';
import { RefundsRepository } from './refunds.repository';

/**
 * The writes of canceling a refund nothing has signed, shared by the merchant's cancel, the reorg
 * guards and the expiry of `requires_destination`: in the caller's transaction, which holds the
 * refund's row lock (and, for a `Pending` one, its payout's, taken first) and has checked that it
 * may be canceled. Its payout (if any) becomes `Rejected` and can never be claimed, the hold goes
 * back where it came from, the refund is `Canceled` and `refund.canceled` is written.
 */
@Injectable()
export class RefundCancellation {
  constructor(
    private readonly refunds: RefundsRepository,
    private readonly payouts: PayoutsRepository,
    private readonly ledger: LedgerService,
    private readonly events: RefundEvents,
  ) {}

  async cancelLocked(
    manager: EntityManager,
    refund: RefundRecord,
    payoutId: string | null,
    reason?: string,
  ): Promise<RefundRecord> {
    if (refund.status === 'Pending') {
      if (payoutId === null) throw new Error(`Refund ${refund.id} is Pending without a payout`);
      await this.payouts.rejectForCanceledRefund(manager, payoutId, reason);
    } else if (refund.status !== 'requires_destination') {
      throw new Error(`Refund ${refund.id} is ${refund.status}: not cancelable`);
    }
    const hold =
      refund.unmatched_transfer_id === null
        ? 'merchant_held'
        : await this.refunds.holdAccountOf(manager, refund.id);
    await this.ledger.post(manager, refundReleaseEntry(refund, hold));
    await this.refunds.setStatus(manager, refund.id, 'Canceled', {
      canceled: true,
      errorReason: reason ?? null,
    });
    return this.events.statusChanged(manager, refund.id, refund.status);
  }

  /**
   * Cancels `requires_destination` refunds (no payout; their rows locked by the caller), their
   * releases posted in one statement: the ledger locks every balance row they touch in account
   * order, as settlement does, rather than merchant by merchant in the refunds' order, which
   * deadlocked with a settlement locking the same merchants' balances (review 2, F5).
   */
  async cancelWithoutPayouts(
    manager: EntityManager,
    refunds: RefundRecord[],
    reason: string,
  ): Promise<void> {
    for (const refund of refunds) {
      if (refund.status !== 'requires_destination' || refund.unmatched_transfer_id !== null) {
        throw new Error(`Refund ${refund.id} is not a session's requires_destination refund`);
      }
    }
    await this.ledger.postMany(
      manager,
      refunds.map((refund) => refundReleaseEntry(refund, 'merchant_held')),
    );
    for (const refund of refunds) {
      await this.refunds.setStatus(manager, refund.id, 'Canceled', {
        canceled: true,
        errorReason: reason,
      });
      await this.events.statusChanged(manager, refund.id, refund.status);
    }
  }
}
