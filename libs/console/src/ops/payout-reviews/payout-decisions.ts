import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { PayoutDto, PayoutReviewError, PayoutReviews, PayoutsRepository } from '@app/payouts';
import { recordAudit } from '../../audit/audit-log';
import { ClientInfo } from '../../sessions/console-sessions.repository';
import { OperatorSession } from '../access/operator-sessions';

/**
 * An operator's approve or reject through PayoutReviews, the service the CLI uses, so every rule
 * (the compare-and-set, the ledger release on rejection, the events) stays in one place. The
 * audit entry is written in the decision's own transaction, under the payout's merchant, so the
 * merchant's log shows it too.
 */
@Injectable()
export class PayoutDecisions {
  constructor(
    private readonly reviews: PayoutReviews,
    private readonly payouts: PayoutsRepository,
  ) {}

  approve(operator: OperatorSession, payoutId: string, client: ClientInfo): Promise<PayoutDto> {
    return this.decide('approve', payoutId, () =>
      this.reviews.approve(payoutId, reviewerOf(operator), (manager, payout) =>
        this.audit(manager, operator, client, 'payout.approved', payout, {}),
      ),
    );
  }

  reject(
    operator: OperatorSession,
    payoutId: string,
    reason: string,
    client: ClientInfo,
  ): Promise<PayoutDto> {
    // An approval is a decision too: a second admin's reject is refused (409), not an overwrite.
    return this.decide('reject', payoutId, () =>
      this.reviews.reject(
        payoutId,
        reviewerOf(operator),
        reason,
        (manager, payout) =>
          this.audit(manager, operator, client, 'payout.rejected', payout, { reason }),
        { refuseApproved: true },
      ),
    );
  }

  private async decide(
    action: 'approve' | 'reject',
    payoutId: string,
    decision: () => Promise<PayoutDto>,
  ): Promise<PayoutDto> {
    try {
      return await decision();
    } catch (error) {
      if (!(error instanceof PayoutReviewError)) throw error;
      const missing = error.message.startsWith('No payout');
      throw new ApiException(
        missing ? ErrorCode.ResourceMissing : ErrorCode.InvalidState,
        missing ? error.message : await this.refusalNamingDecision(action, payoutId, error),
        'id',
      );
    }
  }

  /**
   * A reviewer who lost a race is told what the other decided and who: PayoutReviews names an
   * approval, and a rejection only by the status it left ("it is Rejected").
   */
  private async refusalNamingDecision(
    action: 'approve' | 'reject',
    payoutId: string,
    error: PayoutReviewError,
  ): Promise<string> {
    const payout = await this.payouts.findById(payoutId);
    if (payout?.status === 'Rejected' && payout.reviewed_by !== null) {
      return `Cannot ${action} payout ${payoutId}: it is already rejected by ${payout.reviewed_by}.`;
    }
    return error.message;
  }

  private async audit(
    manager: EntityManager,
    operator: OperatorSession,
    client: ClientInfo,
    action: string,
    payout: { id: string; merchantId: string },
    details: Record<string, unknown>,
  ): Promise<void> {
    await recordAudit(manager, {
      merchantId: payout.merchantId,
      actorType: 'operator',
      actorId: operator.userId,
      action,
      targetType: 'payout',
      targetId: payout.id,
      details: { operator_email: operator.email, ...details },
      ip: client.ip,
      userAgent: client.userAgent,
    });
  }
}

/**
 * What reviewed_by records, as the CLI's `--by NAME` does: the operator's address, which the
 * merchant already sees in its audit log next to the decision.
 */
function reviewerOf(operator: OperatorSession): string {
  return operator.email;
}
