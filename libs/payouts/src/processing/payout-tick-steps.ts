import { Injectable } from '@nestjs/common';
import { NetworkConfig } from '@app/chains';
import { MinedLookup } from './blocks-read';
import { PayoutAttempt } from './payout-attempt.types';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutJournalRepository } from './payout-journal.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { lastTried, REBROADCAST_AFTER_MS, Tick, TrackReport } from './payout-tick';
import { InFlightPayout } from './payout-tracking.repository';

/**
 * The tracker's steps common to EVM and TRON payouts: a mined attempt decided (completed, failed,
 * or its hash made the payout's until confirmed), and stored bytes re-sent.
 */
@Injectable()
export class PayoutTickSteps {
  constructor(
    private readonly journal: PayoutJournalRepository,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
  ) {}

  /**
   * Re-sends the stored bytes of an attempt the node does not know (never sent, or dropped).
   * Whether the node took them: null when not sent (tried less than 3 s ago).
   */
  async rebroadcast(
    attempt: PayoutAttempt,
    report: TrackReport,
    tick: Tick,
  ): Promise<boolean | null> {
    if (attempt.broadcast_count > 0 && tick.now() - lastTried(attempt) < REBROADCAST_AFTER_MS)
      return null;
    report.rebroadcast += 1;
    const result = await this.broadcaster.broadcast(attempt);
    return result?.kind === 'accepted' || result?.kind === 'already_known';
  }

  async onMined(
    network: NetworkConfig,
    payout: InFlightPayout,
    attempt: PayoutAttempt,
    lookup: MinedLookup,
    report: TrackReport,
  ): Promise<void> {
    if (attempt.purpose === 'cancel')
      return this.onCancelMined(network, payout, attempt, lookup, report);
    const { status } = lookup;
    const mined = { txHash: attempt.tx_hash, feeBaseUnits: lookup.feeBaseUnits };
    if (status.confirmations < network.confirmations) {
      await this.journal.setTxHash(payout.id, attempt.tx_hash);
      return;
    }
    if (status.succeeded) {
      if (await this.outcomes.complete(payout.id, mined)) report.completed += 1;
      return;
    }
    const reason =
      `The transaction ${attempt.tx_hash} was mined in block ${status.blockNumber} but failed ` +
      '(reverted: the hot wallet may lack tokens, or the token refused the transfer). Nothing was sent.';
    if (await this.outcomes.failProcessing(payout.id, reason, mined)) report.failed += 1;
  }

  /**
   * The operator's zero-value send took the payout's nonce: once confirmed, no transfer of the
   * payout can ever be mined, and it fails with its funds released. Never Completed (reverted or
   * not, it moved no tokens).
   */
  private async onCancelMined(
    network: NetworkConfig,
    payout: InFlightPayout,
    attempt: PayoutAttempt,
    lookup: MinedLookup,
    report: TrackReport,
  ): Promise<void> {
    if (lookup.status.confirmations < network.confirmations) return;
    const mined = { txHash: attempt.tx_hash, feeBaseUnits: lookup.feeBaseUnits };
    const reason =
      `Cancelled by an operator: nonce ${attempt.nonce} was used by a zero-value transaction ` +
      `${attempt.tx_hash}; nothing was sent.`;
    if (await this.outcomes.failProcessing(payout.id, reason, mined)) report.failed += 1;
  }
}
