import { Injectable, Logger } from '@nestjs/common';
import { Transaction } from 'ethers';
import { EthersPayoutTransport, NetworkName, NetworkRegistry, PayoutTransports } from '@app/chains';
import { EvmSweeper } from './evm-sweeper.service';
import { EvmTopUpBooks } from './evm-top-up-books.service';
import {
  EvmTopUpJournalRepository,
  TopUpAttemptRow,
  TopUpSweepRow,
} from './evm-top-up-journal.repository';
import { EvmTopUpSweeper } from './evm-top-up-sweeper.service';
import { SweepOutcomes } from './sweep-outcomes.service';
import { SweepTrackReport } from './sweep-tracker.service';

// A node that lost an accepted transaction (restart, eviction) gets its stored bytes again.
const REBROADCAST_AFTER_MS = 30_000;

/**
 * Follows gas top-up sweeps: the top-up until its receipt is confirmed (booked, then the
 * deposit address's transfer is sent), the transfer until its receipt is confirmed (booked, the
 * sweep ends). A transaction ends only on a positive proof: its confirmed receipt, or its nonce
 * used by another transaction confirmed in a block (then nothing of the sweep can follow: it is
 * abandoned, the address swept again later). Until then its stored bytes are re-sent.
 */
@Injectable()
export class EvmTopUpTracker {
  private readonly logger = new Logger(EvmTopUpTracker.name);

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly journal: EvmTopUpJournalRepository,
    private readonly books: EvmTopUpBooks,
    private readonly outcomes: SweepOutcomes,
    private readonly sweeper: EvmTopUpSweeper,
    private readonly evm: EvmSweeper,
  ) {}

  async track(name: NetworkName): Promise<SweepTrackReport> {
    const report: SweepTrackReport = { completed: 0, abandoned: 0, replaced: 0, rebroadcast: 0 };
    for (const sweep of await this.journal.live(name)) {
      try {
        await this.trackOne(sweep, report);
      } catch (error) {
        // One address's trouble must not hold the others up: the next pass takes it up again.
        this.logger.warn(
          { sweepId: sweep.id, error: error instanceof Error ? error.message : String(error) },
          'Gas top-up sweep not followed this pass',
        );
      }
    }
    return report;
  }

  private async trackOne(sweep: TopUpSweepRow, report: SweepTrackReport): Promise<void> {
    const network = this.networks.get(sweep.network as NetworkName);
    const chain = this.evm.chainFor(network.name);
    const attempts = await this.journal.attempts(sweep.id);
    // None when our own coin on the address covered the gas: the transfer alone.
    const topUp = attempts.find((attempt) => attempt.step === 'batch');
    const transfer = attempts.find((attempt) => attempt.step === 'transfer')!;
    if (topUp && topUp.status !== 'Mined') {
      const receipt = await chain.receipt(topUp.tx_hash);
      if (!receipt) return this.unmined(sweep, topUp, sweep.sweeper_address, report);
      if (receipt.confirmations < network.confirmations) return;
      const value = Transaction.from(topUp.raw_transaction).value;
      if (!(await this.books.topUpMined(sweep, topUp, receipt, value))) return;
      if (!receipt.succeeded) return;
      // The gas is there: the address may now send its tokens.
      return this.sweeper.send(network.name, transfer);
    }
    const receipt = await chain.receipt(transfer.tx_hash);
    if (!receipt) return this.unmined(sweep, transfer, sweep.address, report);
    if (receipt.confirmations < network.confirmations) return;
    if (await this.books.transferMined(sweep, transfer, receipt)) report.completed += 1;
  }

  /**
   * No receipt here. Its signer's count past its nonce: only the block that used the nonce tells
   * whose transaction it was. Otherwise the stored bytes are sent again.
   */
  private async unmined(
    sweep: TopUpSweepRow,
    attempt: TopUpAttemptRow,
    signer: string,
    report: SweepTrackReport,
  ): Promise<void> {
    const network = this.networks.get(sweep.network as NetworkName);
    const transport = this.transports.transportFor(network.name) as EthersPayoutTransport;
    const nonce = Transaction.from(attempt.raw_transaction).nonce;
    if ((await transport.transactionCount(signer, 'latest')) > nonce) {
      const consumer = await transport.nonceConsumer(signer, nonce);
      if (!consumer || consumer.txHash === attempt.tx_hash) return; // its receipt decides
      if (consumer.confirmations < network.confirmations) return;
      const reason =
        `The nonce ${nonce} of ${signer} was used by ${consumer.txHash}, which is not this ` +
        `sweep's ${attempt.step === 'batch' ? 'top-up' : 'transfer'}; the address is swept again later.`;
      // abandon reads only the sweep's id (a transfer-only sweep has no sweeper nonce).
      if (await this.outcomes.abandon({ ...sweep, nonce: sweep.nonce ?? '' }, reason)) {
        report.abandoned += 1;
      }
      return;
    }
    const lastTried = new Date(
      attempt.broadcast_count > 0 ? attempt.updated_at : attempt.created_at,
    ).getTime();
    if (attempt.broadcast_count === 0 || Date.now() - lastTried >= REBROADCAST_AFTER_MS) {
      report.rebroadcast += 1;
      await this.sweeper.send(network.name, attempt);
    }
  }
}
