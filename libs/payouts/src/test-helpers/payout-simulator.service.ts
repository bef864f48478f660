import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthenticatedMerchant } from '@app/auth';
import { ApiException, ErrorCode, newSimulatedTxHash } from '@app/common';
import { IdempotencyService, IdempotentResult } from '@app/idempotency';
import { LedgerService } from '@app/ledger';
import { PayoutDto } from '../dto/payout.dto';
import { PayoutEvents } from '../payout-events';
import { releaseEntry } from '../payout-ledger';
import { toPayoutDto } from '../payout.mapper';
import { PayoutRecord } from '../payout.types';
import { PayoutJournalRepository } from '../processing/payout-journal.repository';
import { simulatedCompletionEntry } from '../processing/simulated-completion';

const ENDPOINT = 'POST /v1/test-helpers/payouts/{id}';

/**
 * Sandbox endings of a payout without a chain. Each is the worker's own ending (PayoutOutcomes):
 * the journal's status change, the ledger entry by its exactly-once reference, the payout event,
 * in one transaction under the payout's row lock. Only payouts the worker has not claimed: one
 * with an attempt (signed, broadcast, or given up) ends on chain, never here.
 */
@Injectable()
export class PayoutSimulatorService {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly journal: PayoutJournalRepository,
    private readonly ledger: LedgerService,
    private readonly events: PayoutEvents,
  ) {}

  async complete(
    merchant: AuthenticatedMerchant,
    payoutId: string,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<PayoutDto>> {
    return this.run(merchant, payoutId, 'complete', {}, idempotencyKey, async (manager) => {
      const payout = await this.lockUnclaimed(manager, merchant, payoutId);
      if (payout.review_reason && !payout.reviewed_at) {
        throw new ApiException(
          ErrorCode.InvalidState,
          `Payout '${payoutId}' waits for an operator's review: it may only fail until approved.`,
          'id',
        );
      }
      await this.journal.markCompleted(manager, payout.id, newSimulatedTxHash());
      await this.ledger.post(manager, simulatedCompletionEntry(payout));
      await this.events.statusChanged(manager, payout.id, 'Pending');
      return this.answer(manager, payout.id);
    });
  }

  async fail(
    merchant: AuthenticatedMerchant,
    payoutId: string,
    reason: string,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<PayoutDto>> {
    return this.run(merchant, payoutId, 'fail', { reason }, idempotencyKey, async (manager) => {
      const payout = await this.lockUnclaimed(manager, merchant, payoutId);
      await this.journal.markFailed(manager, payout.id, reason, null);
      // By its reference (payout:{id}:release), as the worker's: released once, whoever ends it.
      await this.ledger.post(manager, releaseEntry(payout));
      await this.events.statusChanged(manager, payout.id, 'Pending');
      return this.answer(manager, payout.id);
    });
  }

  private run(
    merchant: AuthenticatedMerchant,
    payoutId: string,
    action: string,
    body: object,
    key: string | undefined,
    work: (manager: EntityManager) => Promise<PayoutDto>,
  ): Promise<IdempotentResult<PayoutDto>> {
    return this.idempotency.execute(
      {
        merchantId: merchant.merchantId,
        key,
        endpoint: `${ENDPOINT}/${action}`,
        fingerprint: { payout_id: payoutId, body },
      },
      async (manager) => ({ status: 200, body: await work(manager) }),
    );
  }

  /**
   * The merchant's sandbox payout under its row lock (the lock the worker's claim takes), Pending
   * and never claimed: after the worker's claim commits it is Processing or has an attempt.
   */
  private async lockUnclaimed(
    manager: EntityManager,
    merchant: AuthenticatedMerchant,
    payoutId: string,
  ): Promise<PayoutRecord> {
    const [payout]: Array<PayoutRecord & { attempts: number }> = await manager.query(
      `SELECT p.*, (SELECT count(*)::int FROM payout_attempts a WHERE a.payout_id = p.id) AS attempts
         FROM payouts p
        WHERE p.id = $1 AND p.merchant_id = $2 AND p.refund_id IS NULL FOR UPDATE OF p`,
      [payoutId, merchant.merchantId],
    );
    if (!payout || payout.livemode) throw ApiException.notFound('payout', payoutId);
    if (payout.status !== 'Pending') {
      throw new ApiException(
        ErrorCode.InvalidState,
        `Payout '${payoutId}' is ${payout.status}: only a Pending payout ends here.`,
        'id',
      );
    }
    if (payout.attempts > 0) {
      throw new ApiException(
        ErrorCode.InvalidState,
        `Payout '${payoutId}' was already sent to the network by the worker: it ends on chain.`,
        'id',
      );
    }
    return payout;
  }

  private async answer(manager: EntityManager, payoutId: string): Promise<PayoutDto> {
    const [row]: PayoutRecord[] = await manager.query(
      `SELECT p.*, sm.code AS sub_merchant_code
         FROM payouts p LEFT JOIN sub_merchants sm ON sm.id = p.sub_merchant_id WHERE p.id = $1`,
      [payoutId],
    );
    return toPayoutDto(row);
  }
}
