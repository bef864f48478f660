import { Injectable, Logger } from '@nestjs/common';
import { BroadcastResult, ChainError, NetworkName, PayoutTransports } from '@app/chains';
import { PayoutAttempt, PayoutJournalRepository } from './payout-journal.repository';
import { evmBytesMatchHash } from './stored-bytes';

/**
 * Sends stored bytes, and only stored bytes, to the node. What the node said is recorded on the
 * attempt; nothing here decides a payout's fate: "timeout" is not "failed", only the chain says.
 */
@Injectable()
export class PayoutBroadcaster {
  private readonly logger = new Logger(PayoutBroadcaster.name);

  constructor(
    private readonly transports: PayoutTransports,
    private readonly journal: PayoutJournalRepository,
  ) {}

  /**
   * Returns the node's answer, or null when none arrived (the outcome is unknown) or nothing was
   * sent: stored EVM bytes that are not the transaction of the stored hash are never sent (the
   * tracker follows the hash, and their nonce taken unseen would have the payout signed anew:
   * paid twice; review r8, F7). Nothing is marked for them: the payout stays Processing, its
   * funds held, for an operator, and an error is logged at every try.
   */
  async broadcast(attempt: PayoutAttempt): Promise<BroadcastResult | null> {
    const transport = this.transports.transportFor(attempt.network as NetworkName);
    if (
      transport.family === 'EVM' &&
      !evmBytesMatchHash(attempt.raw_transaction, attempt.tx_hash)
    ) {
      this.logger.error(
        { payoutId: attempt.payout_id, attemptId: attempt.id, txHash: attempt.tx_hash },
        'Stored transaction bytes are not the transaction of the stored hash: not sent. The ' +
          'payout stays Processing with its funds held; an operator must look at the attempt ' +
          '(a signing bug, or a row edited by hand)',
      );
      return null;
    }
    let result: BroadcastResult;
    try {
      result = await transport.broadcast(attempt.raw_transaction);
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      await this.journal.recordBroadcast(attempt.id, `no answer: ${error.message}`, null);
      this.logger.warn(
        { payoutId: attempt.payout_id, txHash: attempt.tx_hash, reason: error.message },
        'Broadcast unanswered; the tracker will look it up',
      );
      return null;
    }
    const accepted = result.kind === 'accepted' || result.kind === 'already_known';
    const described = result.kind === 'rejected' ? `rejected: ${result.reason}` : result.kind;
    // "Already known" says the node has had it since some earlier broadcast: its wait in the
    // pool did not start now, so it must not put off a replacement.
    const since = result.kind === 'accepted' ? 'now' : accepted ? 'before' : null;
    await this.journal.recordBroadcast(attempt.id, described, since);
    if (!accepted) {
      this.logger.warn(
        { payoutId: attempt.payout_id, txHash: attempt.tx_hash, result: described },
        'Broadcast not accepted',
      );
    }
    return result;
  }
}
