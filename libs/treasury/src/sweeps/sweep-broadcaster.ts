import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkName, PayoutTransports } from '@app/chains';
import { NOT_LIVE, sendWhileLive } from './live-sweep-send';
import { SweepAttemptRow, SweepJournalRepository } from './sweep-journal.repository';

/**
 * Sends a journaled sweep transaction, exactly the stored bytes, and records what the node said.
 * Any answer is safe to repeat: the same bytes can be mined once at most. Only a live sweep's
 * bytes are sent (live-sweep-send.ts).
 */
@Injectable()
export class SweepBroadcaster {
  private readonly logger = new Logger(SweepBroadcaster.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly transports: PayoutTransports,
    private readonly journal: SweepJournalRepository,
  ) {}

  /** What the node answered: 'accepted', 'already_known', 'rejected: ...' or 'error: ...'. */
  async broadcast(network: NetworkName, attempt: SweepAttemptRow): Promise<string> {
    let accepted = false;
    const sent = await sendWhileLive(this.dataSource, attempt.sweep_id, async () => {
      try {
        const answer = await this.transports
          .transportFor(network)
          .broadcast(attempt.raw_transaction);
        accepted = answer.kind === 'accepted' || answer.kind === 'already_known';
        return answer.kind === 'rejected' ? `rejected: ${answer.reason}` : answer.kind;
      } catch (error) {
        // The outcome is unknown: the tracker looks the transaction up and sends it again.
        return `error: ${error instanceof Error ? error.message : String(error)}`;
      }
    });
    if (sent === null) return NOT_LIVE;
    const result = sent;
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
