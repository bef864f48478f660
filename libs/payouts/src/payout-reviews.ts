import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerService } from '@app/ledger';
import { PayoutDto } from './dto/payout.dto';
import { releaseEntry } from './payout-ledger';
import { toPayoutDto } from './payout.mapper';
import { PayoutEvents } from './payout-events';
import { PayoutQueue } from './payout-queue';
import { PayoutRecord, PayoutStatus } from './payout.types';
import { PayoutsRepository } from './payouts.repository';

/** An operator action that does not apply to the payout as it stands now. */
export class PayoutReviewError extends Error {}

/**
 * Runs in the decision's transaction, after the decision: the operator area records its audit
 * entry there, so the entry exists exactly when the decision was committed.
 */
export type PayoutDecisionHook = (
  manager: EntityManager,
  payout: { id: string; merchantId: string },
) => Promise<void>;

/**
 * Operator review of payouts (the CLI stands in for the console). Approval and rejection are
 * compare-and-set on the payout's row: the processor claims only `Pending` payouts whose review,
 * if any, is approved, so nothing is sent before an approval commits, and a rejection and a
 * claim can never both happen.
 */
@Injectable()
export class PayoutReviews {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutsRepository,
    private readonly ledger: LedgerService,
    private readonly queue: PayoutQueue,
    private readonly events: PayoutEvents,
  ) {}

  async approve(
    payoutId: string,
    reviewer: string,
    onDecided?: PayoutDecisionHook,
  ): Promise<PayoutDto> {
    await this.dataSource.transaction(async (manager) => {
      // Wrapped in a CTE: TypeORM returns [rows, count] for a bare UPDATE ... RETURNING, whose
      // length is never 0, so a refused approval would pass for a successful one.
      const rows: Array<{ id: string; merchant_id: string }> = await manager.query(
        `WITH approved AS (
           UPDATE payouts SET reviewed_by = $2, reviewed_at = now(), updated_at = now()
            WHERE id = $1 AND status = 'Pending' AND review_reason IS NOT NULL
              AND reviewed_at IS NULL
            RETURNING id, merchant_id)
         SELECT id, merchant_id FROM approved`,
        [payoutId, reviewer],
      );
      if (!rows.length) await this.explainRefusal(payoutId, 'approve');
      await onDecided?.(manager, { id: payoutId, merchantId: rows[0].merchant_id });
    });
    await this.queue.enqueueSend(payoutId);
    return this.view(payoutId);
  }

  /**
   * Any `Pending` payout can be rejected (awaiting review or waiting for the hot wallet), an
   * approved one included, unless `refuseApproved`: the operator area's reviewers must not
   * overturn each other's approval (the CLI keeps rejecting an approved payout not yet sent).
   */
  async reject(
    payoutId: string,
    reviewer: string,
    reason: string,
    onDecided?: PayoutDecisionHook,
    options: { refuseApproved?: boolean } = {},
  ): Promise<PayoutDto> {
    await this.dataSource.transaction(async (manager) => {
      const [payout]: PayoutRecord[] = await manager.query(
        `SELECT * FROM payouts WHERE id = $1 FOR UPDATE`,
        [payoutId],
      );
      if (!payout || payout.status !== 'Pending') await this.explainRefusal(payoutId, 'reject');
      if (options.refuseApproved && payout.reviewed_at !== null) {
        await this.explainRefusal(payoutId, 'reject');
      }
      await manager.query(
        `UPDATE payouts SET status = 'Rejected', reviewed_by = $2, reviewed_at = now(),
                error_reason = $3, pending_reason = NULL, updated_at = now()
          WHERE id = $1`,
        [payoutId, reviewer, `Rejected at review: ${reason}`],
      );
      await this.ledger.post(manager, releaseEntry(payout));
      await this.events.statusChanged(manager, payoutId, 'Pending');
      await onDecided?.(manager, { id: payoutId, merchantId: payout.merchant_id });
    });
    return this.view(payoutId);
  }

  async list(statuses: PayoutStatus[], limit = 100): Promise<PayoutDto[]> {
    const rows: PayoutRecord[] = await this.dataSource.query(
      `SELECT p.*, sm.code AS sub_merchant_code
         FROM payouts p LEFT JOIN sub_merchants sm ON sm.id = p.sub_merchant_id
        WHERE p.status = ANY($1::text[]) ORDER BY p.created_at, p.id LIMIT $2`,
      [statuses, limit],
    );
    return rows.map(toPayoutDto);
  }

  private async view(payoutId: string): Promise<PayoutDto> {
    const row = await this.payouts.findById(payoutId);
    if (!row) throw new PayoutReviewError(`No payout ${payoutId}.`);
    return toPayoutDto(row);
  }

  private async explainRefusal(payoutId: string, action: string): Promise<never> {
    const row = await this.payouts.findById(payoutId);
    if (!row) throw new PayoutReviewError(`No payout ${payoutId}.`);
    if (row.status !== 'Pending') {
      throw new PayoutReviewError(`Cannot ${action} payout ${payoutId}: it is ${row.status}.`);
    }
    const state = row.reviewed_at
      ? `already approved by ${row.reviewed_by}`
      : 'not awaiting review';
    throw new PayoutReviewError(`Cannot ${action} payout ${payoutId}: it is ${state}.`);
  }
}
