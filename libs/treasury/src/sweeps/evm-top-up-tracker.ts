import { Inject, Injectable, Logger } from '@nestjs/common';
import { getAddress, Interface, Transaction } from 'ethers';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { EthersPayoutTransport, NetworkName, NetworkRegistry, PayoutTransports } from '@app/chains';
import { minimumReplacementFees } from '@app/payouts';
import { EvmSweeper } from './evm-sweeper';
import { EvmTopUpBooks } from './evm-top-up-books';
import {
  EvmTopUpJournalRepository,
  TopUpAttemptRow,
  TopUpSweepRow,
} from './evm-top-up-journal.repository';
import { pairedTransfer } from './evm-top-up-pairing';
import { signDepositTransfer, signTopUp } from './evm-top-up-signing';
import { SweepBroadcaster } from './sweep-broadcaster';
import { SweepJournalRepository } from './sweep-journal.repository';
import { SweepKeys } from './sweep-keys';
import { SweepOutcomes } from './sweep-outcomes';
import { gasPriceCapWei } from './sweep-policy';
import { laneToSend } from './sweep-lane-attempts';
import { rebroadcastDue, SweepTrackReport } from './sweep-tracker';

const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);

/**
 * Follows gas top-up sweeps: the top-up until its receipt is confirmed (booked, then the
 * deposit address's transfer is sent), the transfer until its receipt is confirmed (booked, the
 * sweep ends). A transaction ends only on a positive proof: its confirmed receipt, or its nonce
 * used by another transaction confirmed in a block (then nothing of the sweep can follow: it is
 * abandoned, the address swept again later). Until then its stored bytes are re-sent, and a
 * top-up stuck past PAYOUT_REPLACE_AFTER_MS is outbid with the same nonce, value and recipient
 * (journaled first, never above the network's gas cap), as batches are. The sweeper's nonce may
 * also be taken by the operator's cancel (treasury:cancel-nonce), whose receipt ends the sweep.
 */
@Injectable()
export class EvmTopUpTracker {
  private readonly logger = new Logger(EvmTopUpTracker.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly keys: SweepKeys,
    private readonly journal: EvmTopUpJournalRepository,
    private readonly sweepJournal: SweepJournalRepository,
    private readonly books: EvmTopUpBooks,
    private readonly outcomes: SweepOutcomes,
    private readonly evm: EvmSweeper,
    private readonly broadcaster: SweepBroadcaster,
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
    // The sweeper's transactions, all with the sweep's nonce: the top-up, its replacements, a
    // cancel. None when our own coin on the address covered the gas: the transfer alone.
    const lane = attempts.filter((attempt) => attempt.step !== 'transfer');
    if (lane.length && !lane.some((attempt) => attempt.status === 'Mined')) {
      // Newest first: whichever of them a confirmed receipt shows is the one that used the nonce.
      for (const attempt of [...lane].reverse()) {
        const receipt = await chain.receipt(attempt.tx_hash);
        if (!receipt) continue;
        if (receipt.confirmations < network.confirmations) return;
        if (attempt.step === 'cancel') {
          if (await this.outcomes.cancelled(sweep, attempt.tx_hash, receipt)) report.abandoned += 1;
          return;
        }
        const value = Transaction.from(attempt.raw_transaction).value;
        if (!(await this.books.topUpMined(sweep, attempt, receipt, value))) return;
        if (!receipt.succeeded) return;
        // The gas is there: the address may now send its tokens, at the fees this top-up paid.
        const transfer = pairedTransfer(await this.journal.attempts(sweep.id), attempt);
        await this.broadcaster.broadcast(network.name, transfer);
        return;
      }
      return this.unmined(sweep, lane, sweep.sweeper_address, report);
    }
    // Once a top-up is mined, the transfer signed at its fees is the only one not superseded.
    const transfer = pairedTransfer(attempts);
    const receipt = await chain.receipt(transfer.tx_hash);
    if (!receipt) return this.unmined(sweep, [transfer], sweep.address, report);
    if (receipt.confirmations < network.confirmations) return;
    if (await this.books.transferMined(sweep, transfer, receipt)) report.completed += 1;
  }

  /**
   * No receipt here for any of `attempts` (one signer, one nonce). The signer's count past the
   * nonce: only the block that used the nonce tells whose transaction it was. Otherwise a stuck
   * top-up is outbid, or the newest stored bytes are sent again.
   */
  private async unmined(
    sweep: TopUpSweepRow,
    attempts: TopUpAttemptRow[],
    signer: string,
    report: SweepTrackReport,
  ): Promise<void> {
    const network = this.networks.get(sweep.network as NetworkName);
    const transport = this.transports.transportFor(network.name) as EthersPayoutTransport;
    const newest = attempts[attempts.length - 1];
    const nonce = Transaction.from(newest.raw_transaction).nonce;
    if ((await transport.transactionCount(signer, 'latest')) > nonce) {
      const consumer = await transport.nonceConsumer(signer, nonce);
      if (!consumer || attempts.some((attempt) => attempt.tx_hash === consumer.txHash)) return;
      if (consumer.confirmations < network.confirmations) return;
      const reason =
        `The nonce ${nonce} of ${signer} was used by ${consumer.txHash}, which is not this ` +
        `sweep's ${newest.step === 'transfer' ? 'transfer' : 'top-up'}; the address is swept again later.`;
      // abandon reads only the sweep's id (a transfer-only sweep has no sweeper nonce).
      if (await this.outcomes.abandon({ ...sweep, nonce: sweep.nonce ?? '' }, reason)) {
        report.abandoned += 1;
      }
      return;
    }
    // A cancel a node took decides the sweeper's lane; one no node took yet (refused) leaves the
    // top-up to be replaced and re-sent as before.
    const lane = laneToSend(attempts);
    const own = lane.own;
    if (
      own?.step === 'batch' &&
      !lane.acceptedCancel &&
      Date.now() - new Date(own.last_broadcast_at ?? own.created_at).getTime() >=
        this.config.payouts.replaceAfterMs &&
      (await this.replace(sweep, own, transport))
    ) {
      report.replaced += 1;
      return;
    }
    for (const attempt of [lane.acceptedCancel ?? own, lane.pendingCancel]) {
      if (!attempt || !rebroadcastDue(attempt)) continue;
      report.rebroadcast += 1;
      await this.broadcaster.broadcast(network.name, attempt);
    }
  }

  /**
   * The same top-up (nonce, recipient) at higher fees, never above the network's gas cap (a sweep
   * is never urgent: it waits for the base fee to fall), journaled before it is sent. The deposit
   * address's transfer, never sent before a top-up is mined, is signed again at the same new fees
   * (same nonce, token, amount, gas limit) in the same transaction, and the top-up's value grows
   * by the transfer's gas limit times the fee increase: whichever version is mined pays exactly
   * the transfer signed at its fees (evm-top-up-pairing.ts). A transfer left at the old cap
   * would stay under a base fee that rose, with no exit.
   */
  private async replace(
    sweep: TopUpSweepRow,
    newest: TopUpAttemptRow,
    transport: EthersPayoutTransport,
  ): Promise<boolean> {
    const name = sweep.network as NetworkName;
    const settings = this.keys.settings.get(name);
    const sweeper = this.keys.sweeperFor(name);
    if (!settings || !sweeper || getAddress(sweeper.address) !== getAddress(sweep.sweeper_address))
      return false;
    const fees = minimumReplacementFees(
      {
        maxFeePerGas: BigInt(newest.max_fee_per_gas),
        maxPriorityFeePerGas: BigInt(newest.max_priority_fee_per_gas),
      },
      await transport.suggestFees(),
    );
    if (fees.maxFeePerGas > gasPriceCapWei(settings)) return false;
    if (fees.maxPriorityFeePerGas > fees.maxFeePerGas) return false;
    const chainId = this.networks.get(name).chainId;
    const attempt = await this.dataSource.transaction(async (manager) => {
      if (!(await this.journal.lockLive(manager, sweep.id))) return null;
      const current = await this.journal.attempts(sweep.id, manager);
      // Outbid only the newest of the sweeper's: another pass, or the operator's cancel, may
      // have come first. Attempt numbers run across both signers (the transfer is one of them).
      const lane = current.filter((row) => row.step !== 'transfer');
      const now = laneToSend(lane);
      if (
        now.acceptedCancel ||
        now.own?.id !== newest.id ||
        lane.some((row) => row.status === 'Mined')
      )
        return null;
      const transfer = pairedTransfer(current, newest);
      // Sent only after a top-up is mined: one ever sent cannot be signed again.
      if (transfer.status !== 'Signed' || transfer.broadcast_count > 0) return null;
      const previous = Transaction.from(newest.raw_transaction);
      const oldTransfer = Transaction.from(transfer.raw_transaction);
      const [to, amount] = ERC20.decodeFunctionData('transfer', oldTransfer.data) as unknown as [
        string,
        bigint,
      ];
      const extra = oldTransfer.gasLimit * (fees.maxFeePerGas - oldTransfer.maxFeePerGas!);
      const value = previous.value + (extra > 0n ? extra : 0n);
      const signedTopUp = await signTopUp(sweeper.privateKey(), {
        chainId,
        to: previous.to!,
        value,
        nonce: previous.nonce,
        gasLimit: previous.gasLimit,
        fees,
      });
      const signedTransfer = await signDepositTransfer(
        this.keys.depositPrivateKey('EVM', sweep.derivation_index),
        {
          chainId,
          token: oldTransfer.to!,
          to,
          amount,
          nonce: oldTransfer.nonce,
          gasLimit: oldTransfer.gasLimit,
          fees,
        },
        { tokens: [sweep.token_contract], destinations: [sweep.destination_address] },
      );
      const number = current[current.length - 1].attempt_number + 1;
      const row = await this.sweepJournal.insertAttempt(manager, sweep.id, sweep.network, number, {
        ...signedTopUp,
        ...fees,
        gasLimit: previous.gasLimit,
      });
      await this.journal.insertTransfer(
        manager,
        sweep.id,
        sweep.network,
        { ...signedTransfer, ...fees, gasLimit: oldTransfer.gasLimit },
        number + 1,
      );
      return row;
    });
    if (!attempt) return false;
    this.logger.log({ sweepId: sweep.id, txHash: attempt.tx_hash }, 'Gas top-up replaced');
    await this.broadcaster.broadcast(name, attempt);
    return true;
  }
}
