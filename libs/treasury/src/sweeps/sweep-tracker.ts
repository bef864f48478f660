import { Inject, Injectable, Logger } from '@nestjs/common';
import { getAddress, Transaction } from 'ethers';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  ChainError,
  EvmPayoutTransport,
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
} from '@app/chains';
import { decodeSweepReceipt } from '@app/chains/sweeps/evm-sweep-receipt';
import { signSweepBatch } from '@app/chains/sweeps/evm-sweep-transaction';
import { minimumReplacementFees } from '@app/payouts';
import { EvmSweeper } from './evm-sweeper';
import { SweepBroadcaster } from './sweep-broadcaster';
import { LiveSweep, SweepAttemptRow, SweepJournalRepository } from './sweep-journal.repository';
import { laneToSend } from './sweep-lane-attempts';
import { SweepKeys } from './sweep-keys';
import { SweepOutcomes } from './sweep-outcomes';
import { gasPriceCapWei } from './sweep-policy';

// A node that lost an accepted transaction (restart, eviction) gets its stored bytes again.
const REBROADCAST_AFTER_MS = 30_000;

export interface SweepTrackReport {
  completed: number;
  abandoned: number;
  replaced: number;
  rebroadcast: number;
}

/**
 * Follows live sweeps to their end. A sweep ends only on a positive proof: a confirmed receipt of
 * one of its transactions (booked from its events; the operator's cancel among them, which ends
 * it Failed with the cancel's fee booked), or its nonce confirmed in a block by a transaction that
 * is none of them. Until then its stored bytes are re-sent, and after
 * PAYOUT_REPLACE_AFTER_MS outbid with the same nonce, never above the network's gas cap.
 */
@Injectable()
export class SweepTracker {
  private readonly logger = new Logger(SweepTracker.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly transports: PayoutTransports,
    private readonly journal: SweepJournalRepository,
    private readonly outcomes: SweepOutcomes,
    private readonly broadcaster: SweepBroadcaster,
    private readonly sweeper: EvmSweeper,
  ) {}

  async track(name: NetworkName): Promise<SweepTrackReport> {
    const report: SweepTrackReport = { completed: 0, abandoned: 0, replaced: 0, rebroadcast: 0 };
    // Every live batch, whatever the settings say now (gasTopUp on, the delegate rotated).
    for (const sweep of await this.journal.live(name)) {
      try {
        await this.trackOne(sweep, report);
      } catch (error) {
        // One sweep's transient trouble (a receipt without its fee yet) holds back no other.
        if (!(error instanceof ChainError) || error.kind !== 'transient') throw error;
        this.logger.warn({ sweepId: sweep.id, reason: error.message }, 'Sweep tracked again later');
      }
    }
    return report;
  }

  private async trackOne(sweep: LiveSweep, report: SweepTrackReport) {
    const network = this.networks.get(sweep.network as NetworkName);
    const chain = this.sweeper.chainFor(network.name);
    const attempts = await this.journal.attempts(sweep.id);
    for (const attempt of [...attempts].reverse()) {
      const receipt = await chain.receipt(attempt.tx_hash);
      if (!receipt) continue;
      if (receipt.confirmations < network.confirmations) return;
      if (attempt.step === 'cancel') {
        // The operator's zero-value send took the nonce: proven, nothing of the batch can follow.
        if (await this.outcomes.cancelled(sweep, attempt.tx_hash, receipt)) report.abandoned += 1;
        return;
      }
      // The delegate this batch called, journaled with it; never the one configured now.
      const delegate = sweep.delegate ?? Transaction.from(attempt.raw_transaction).to!;
      const decoded = decodeSweepReceipt(receipt.logs, delegate);
      // Nothing of the batch moved: only the token's blacklist tells a refused address from a
      // paused token (sweep-safety.ts failureCounts).
      const blacklisted =
        receipt.succeeded && decoded.failed.length && !decoded.swept.length
          ? await chain.blacklisted(
              sweep.token_contract,
              decoded.failed.map((item) => item.account),
            )
          : new Set<string>();
      const finished = await this.outcomes.finish(
        sweep,
        attempt.tx_hash,
        receipt,
        decoded,
        blacklisted,
      );
      if (finished) report.completed += 1;
      return;
    }
    const transport = this.transports.transportFor(network.name) as EvmPayoutTransport;
    const nonce = Number(sweep.nonce);
    if ((await transport.transactionCount(sweep.sweeper_address, 'latest')) > nonce) {
      await this.onNonceUsed(sweep, attempts, transport, network.confirmations, report);
      return;
    }
    const lane = laneToSend(attempts);
    // A cancel a node took stays a cancel: never outbid by a batch; the operator bids again if
    // need be. One no node took yet leaves the batch to be replaced and re-sent as before.
    if (
      !lane.acceptedCancel &&
      lane.own &&
      Date.now() - firstAccepted(lane.own) >= this.config.payouts.replaceAfterMs &&
      (await this.replace(sweep, lane.own, transport))
    ) {
      report.replaced += 1;
      return;
    }
    for (const attempt of [lane.acceptedCancel ?? lane.own, lane.pendingCancel]) {
      if (!attempt || !rebroadcastDue(attempt)) continue;
      report.rebroadcast += 1;
      await this.broadcaster.broadcast(network.name, attempt);
    }
  }

  /**
   * The sweeper's count passed the nonce but no attempt has a receipt here (a lagging backend):
   * only the block that used the nonce tells whose it was.
   */
  private async onNonceUsed(
    sweep: LiveSweep,
    attempts: SweepAttemptRow[],
    transport: EvmPayoutTransport,
    confirmations: number,
    report: SweepTrackReport,
  ): Promise<void> {
    const consumer = await transport.nonceConsumer(sweep.sweeper_address, Number(sweep.nonce));
    if (!consumer) return;
    if (attempts.some((attempt) => attempt.tx_hash === consumer.txHash)) return; // its receipt decides
    if (consumer.confirmations < confirmations) return;
    const reason =
      `The sweeper's nonce ${sweep.nonce} was used by ${consumer.txHash}, which is not this ` +
      'sweep; nothing of it can be mined. Its addresses are swept again later.';
    if (await this.outcomes.abandon(sweep, reason)) report.abandoned += 1;
  }

  /** Same nonce, same calls and authorizations, higher fees; journaled before it is sent. */
  private async replace(
    sweep: LiveSweep,
    newest: SweepAttemptRow,
    transport: EvmPayoutTransport,
  ): Promise<boolean> {
    const settings = this.keys.settings.get(sweep.network as NetworkName);
    const sweeper = this.keys.sweeperFor(sweep.network as NetworkName);
    if (!settings || !sweeper || getAddress(sweeper.address) !== getAddress(sweep.sweeper_address))
      return false;
    const fees = minimumReplacementFees(
      {
        maxFeePerGas: BigInt(newest.max_fee_per_gas),
        maxPriorityFeePerGas: BigInt(newest.max_priority_fee_per_gas),
      },
      await transport.suggestFees(),
    );
    if (fees.maxFeePerGas > gasPriceCapWei(settings)) return false; // waits: a sweep is never urgent
    const previous = Transaction.from(newest.raw_transaction);
    const network = this.networks.get(sweep.network as NetworkName);
    const signed = signSweepBatch(sweeper.privateKey(), {
      chainId: network.chainId,
      delegate: previous.to!,
      calldata: previous.data,
      nonce: previous.nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      gasLimit: previous.gasLimit,
      authorizationList: previous.authorizationList ?? [],
    });
    const attempt = await this.dataSource.transaction(async (manager) => {
      if (!(await this.journal.lockLive(manager, sweep.id))) return null;
      const current = await this.journal.attempts(sweep.id, manager);
      const now = laneToSend(current);
      // Another tick replaced it first (outbid only the newest), or a node took a cancel.
      if (now.acceptedCancel || now.own?.id !== newest.id) return null;
      return this.journal.insertAttempt(
        manager,
        sweep.id,
        sweep.network,
        current[current.length - 1].attempt_number + 1,
        {
          txHash: signed.txHash,
          rawTransaction: signed.rawTransaction,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          gasLimit: previous.gasLimit,
        },
      );
    });
    if (!attempt) return false;
    this.logger.log(
      { sweepId: sweep.id, txHash: attempt.tx_hash },
      'Sweep replaced with higher fees',
    );
    await this.broadcaster.broadcast(network.name, attempt);
    return true;
  }
}

/** Never sent, or not sent for REBROADCAST_AFTER_MS. */
export function rebroadcastDue(attempt: SweepAttemptRow): boolean {
  const lastTried = new Date(
    attempt.broadcast_count > 0 ? attempt.updated_at : attempt.created_at,
  ).getTime();
  return attempt.broadcast_count === 0 || Date.now() - lastTried >= REBROADCAST_AFTER_MS;
}

function firstAccepted(attempt: SweepAttemptRow): number {
  return new Date(attempt.last_broadcast_at ?? attempt.created_at).getTime();
}
