import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LedgerService } from '@app/ledger';
import { PayoutEvents } from '../payout-events';
import { completionEntry, releaseEntry } from '../payout-ledger';
import { PayoutJournalRepository } from './payout-journal.repository';

/**
 * The final states of a payout, each in one transaction with its ledger entry and guarded by the
 * payout's status (compare-and-set): a payout ends once, whoever gets there first.
 */
@Injectable()
export class PayoutOutcomes {
  private readonly logger = new Logger(PayoutOutcomes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly ledger: LedgerService,
    private readonly events: PayoutEvents,
  ) {}

  /** Confirmed on chain: held -> sent (net) and fees (fee). */
  async complete(payoutId: string, txHash: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockProcessing(manager, payoutId);
      if (!payout) return false;
      await this.journal.markCompleted(manager, payoutId, txHash);
      await this.ledger.post(manager, completionEntry(payout));
      await this.events.statusChanged(manager, payoutId, 'Processing');
      this.logger.log({ payoutId, txHash }, 'Payout completed');
      return true;
    });
  }

  /** The chain refused it (mined and reverted): nothing left the wallet, the funds go back. */
  async failProcessing(payoutId: string, reason: string, txHash: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockProcessing(manager, payoutId);
      if (!payout) return false;
      await this.journal.markFailed(manager, payoutId, reason, txHash);
      await this.ledger.post(manager, releaseEntry(payout));
      await this.events.statusChanged(manager, payoutId, 'Processing');
      this.logger.warn({ payoutId, txHash, reason }, 'Payout failed');
      return true;
    });
  }

  /** Never signed (e.g. the hot wallet cannot cover it and the operator chose to fail): released. */
  async failPending(payoutId: string, reason: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockSendable(manager, payoutId);
      if (!payout) return false;
      await this.journal.markFailed(manager, payoutId, reason, null);
      await this.ledger.post(manager, releaseEntry(payout));
      await this.events.statusChanged(manager, payoutId, 'Pending');
      this.logger.warn({ payoutId, reason }, 'Payout failed before sending');
      return true;
    });
  }
}
