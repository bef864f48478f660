import { Injectable, Logger } from '@nestjs/common';
import { NetworkName, PayoutTransports } from '@app/chains';
import { SweepAttemptRow, SweepJournalRepository } from './sweep-journal.repository';

/**
 * Sends a journaled sweep transaction, exactly the stored bytes, and records what the node said.
 * Any answer is safe to repeat: the same bytes can be mined once at most.
 */
@Injectable()
export class SweepBroadcaster {
  private readonly logger = new Logger(SweepBroadcaster.name);

  constructor(
    private readonly transports: PayoutTransports,
    private readonly journal: SweepJournalRepository,
  ) {}

  /** What the node answered: 'accepted', 'already_known', 'rejected: ...' or 'error: ...'. */
  async broadcast(network: NetworkName, attempt: SweepAttemptRow): Promise<string> {
    let result: string;
    let accepted = false;
    try {
      const answer = await this.transports.transportFor(network).broadcast(attempt.raw_transaction);
      accepted = answer.kind === 'accepted' || answer.kind === 'already_known';
      result = answer.kind === 'rejected' ? `rejected: ${answer.reason}` : answer.kind;
    } catch (error) {
      // The outcome is unknown: the tracker looks the transaction up and sends it again.
      result = `error: ${error instanceof Error ? error.message : String(error)}`;
    }
    await this.journal.recordBroadcast(attempt.id, result, accepted);
    if (!accepted) {
      this.logger.warn(
        { sweepId: attempt.sweep_id, txHash: attempt.tx_hash, result },
        'Sweep broadcast not accepted',
      );
    }
    return result;
  }
}
