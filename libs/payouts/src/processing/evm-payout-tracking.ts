import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  ChainError,
  EvmPayoutTransport,
  NetworkConfig,
  NetworkName,
  TransactionLookup,
} from '@app/chains';
import { HotWallets } from './hot-wallets';
import { NonceProofWaits } from './nonce-proof-waits';
import { PayoutAttempt } from './payout-attempt.types';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutJournalRepository } from './payout-journal.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { PayoutSigner, transferOrder } from './payout-signer';
import { lastTried, liveIds, REBROADCAST_AFTER_MS, Tick, TrackReport } from './payout-tick';
import { PayoutTickSteps } from './payout-tick-steps';
import { PayoutTrackerReads } from './payout-tracker-reads.repository';
import { InFlightPayout } from './payout-tracking.repository';

/**
 * The tracker's EVM payouts, one at a time: decided on receipts of blocks the run proves the
 * chain's, re-sent, replaced on the same nonce with higher fees, or signed anew on a new nonce
 * once another transaction took theirs at a confirmed depth.
 */
@Injectable()
export class EvmPayoutTracking {
  private readonly logger = new Logger(EvmPayoutTracking.name);
  private readonly reads: PayoutTrackerReads;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
    private readonly nonceProofWaits: NonceProofWaits,
    private readonly steps: PayoutTickSteps,
  ) {
    this.reads = new PayoutTrackerReads(dataSource);
  }

  async track(
    network: NetworkConfig,
    transport: EvmPayoutTransport,
    payout: InFlightPayout,
    minedCounts: Map<string, number>,
    report: TrackReport,
    tick: Tick,
  ): Promise<void> {
    const [latest] = payout.attempts;
    // Processing without a live attempt is never written (retiring and signing share a transaction).
    if (!latest) return;
    // A receipt read from a block of the run (it names that block): mined there. The live
    // attempts share one nonce, so one of them at most can be mined. Found in no block read
    // proves nothing: on as before.
    for (const attempt of payout.attempts) {
      const mined = tick.blocks?.mined(attempt.tx_hash);
      if (mined) return this.steps.onMined(network, payout, attempt, mined, report);
    }
    // A hint only (a load-balanced RPC answers counts from backends at other heights): what is
    // decided below rests on receipts and on the block that used the nonce.
    if (nonceUsed(payout, minedCounts)) {
      // Blocks a head read lately names are not read yet (a backend behind answered this tick):
      // the transaction is likely in them, found there by a later tick. Only this search for the
      // block that used the nonce waits for them; sending the stored bytes and replacing on the
      // same nonce below never wait (review r7, M1: behind a lagging balancer they waited for a
      // rare tick with every block read, and a dead claim's batch stalled its wallet), and a
      // sent one waits at most as long as a replacement would. Neither can pay twice: every live
      // attempt shares the nonce. Behind such a balancer the run is nearly always catching up,
      // so this wait too is bounded: only for transactions the run can hold (stored after its
      // first block was read: one mined before that block, in flight when the worker started,
      // is never found there), and no longer than a replacement waits (the nonce may be another
      // transaction's, and only the search proves it).
      if (
        tick.blocks?.catchingUp &&
        tick.blocks.mayHold(firstStored(payout)) &&
        tick.now() - firstAccepted(latest) < this.config.payouts.replaceAfterMs
      ) {
        return;
      }
      for (const attempt of payout.attempts) {
        const lookup = await this.lookUp(transport, tick, attempt.tx_hash, payout);
        // Mined in a block not proven the chain's (yet): nothing decided or signed this tick.
        if (!lookup) return;
        if (lookup.state === 'mined')
          return this.steps.onMined(network, payout, attempt, lookup, report);
      }
      return this.onNonceUsed(network, transport, payout, latest, report, tick);
    }
    // Not mined yet. A transaction tried moments ago is left alone; an older one is looked up.
    // One signed moments ago and never sent is its claim's to send: a claim broadcasts its
    // transactions one after the other, and the tracker would send the batch's tail a second
    // time. Never sent 3 s after its signature, its claim died: the stored bytes are sent here.
    if (tick.now() - lastTried(latest) < REBROADCAST_AFTER_MS) return;
    if (latest.broadcast_count === 0) {
      // As of now, not as of the window: a claim slow to send its batch (under load, longer than
      // a tick's start to this payout) may have sent it since, and it may even be mined.
      if (await this.reads.neverBroadcast(latest.id))
        await this.steps.rebroadcast(latest, report, tick);
      return;
    }
    // Sent, and perhaps in a block still to read: a backend behind would answer "unknown" and
    // have mined bytes sent again. Waited on for as long as a replacement would be, no longer.
    if (
      tick.blocks?.catchingUp &&
      tick.now() - firstAccepted(latest) < this.config.payouts.replaceAfterMs
    ) {
      return;
    }
    const lookup = await this.lookUp(transport, tick, latest.tx_hash, payout);
    if (!lookup) return;
    if (lookup.state === 'mined')
      return this.steps.onMined(network, payout, latest, lookup, report);
    // Not mined long after the node last took it (or never taken since: outbid by the base fee):
    // outbid it with the same nonce. Not while a lower nonce of the wallet is missing from the
    // node: this one cannot be mined before that one, whatever it bids.
    if (
      tick.now() - firstAccepted(latest) >= this.config.payouts.replaceAfterMs &&
      !behindMissing(latest, tick)
    ) {
      if (await this.replaceEvm(payout, latest, transport, report)) return;
    }
    // Unknown to the node (dropped from the pool, or refused): send the same bytes again.
    if (
      lookup.state === 'unknown' &&
      (await this.steps.rebroadcast(latest, report, tick)) !== true
    ) {
      const lowest = tick.missing.get(latest.wallet_address);
      const nonce = BigInt(latest.nonce ?? 0);
      if (lowest === undefined || nonce < lowest) tick.missing.set(latest.wallet_address, nonce);
    }
  }

  /**
   * The nonce is used and no live attempt has a receipt here. Only the block that used it tells
   * by whom: one of this payout's attempts (of any status: the receipt decides, once a node that
   * has it answers), or another transaction, which proves, once confirmed, that no attempt of
   * this payout can ever be mined. Without that block read, nothing is decided.
   */
  private async onNonceUsed(
    network: NetworkConfig,
    transport: EvmPayoutTransport,
    payout: InFlightPayout,
    latest: PayoutAttempt,
    report: TrackReport,
    tick: Tick,
  ): Promise<void> {
    // Read before the proof: a re-sign must only act on the attempts the proof was drawn from.
    const attempts = await this.journal.attemptsOf(payout.id);
    const consumer = await transport.nonceConsumer(latest.wallet_address, Number(latest.nonce));
    // Funds held until a proof: counted, and alerted on when it does not come (docs/operations.md).
    if (!consumer) return this.nonceProofWaits.unproven(payout.id, payout.network, latest);
    const own = attempts.find((attempt) => attempt.tx_hash === consumer.txHash);
    if (own) {
      // A wait on an unproven block is recorded by lookUp (review r9a, N3); a proof ends it.
      const lookup =
        tick.blocks?.mined(own.tx_hash) ??
        (await this.lookUp(transport, tick, own.tx_hash, payout));
      if (lookup?.state === 'mined') {
        await this.nonceProofWaits.proven(payout.id);
        await this.steps.onMined(network, payout, own, lookup, report);
      }
      return;
    }
    // The block was read by number from one backend, which may serve a block that lost a fork:
    // only the run's block at that height, or its ancestor, proves another transaction took the
    // nonce, and only its confirmations along the run count (review r8, F2). Otherwise this
    // payout's own transaction may still be mined on the chain: nothing is signed or failed.
    const confirmations = await tick.blocks?.confirmed(transport, consumer);
    // Waited on like a consumer no node names (review r9a, N3): the wait was ended before this
    // proof was tried, every tick, so a block never proven (a run reset past it, a lost fork)
    // held the payout's funds unseen by the gauge and its alert.
    if (confirmations === null || confirmations === undefined) {
      return this.nonceProofWaits.unproven(payout.id, payout.network, latest, 'block');
    }
    // Proven the chain's: only its depth is still to come, which every block read adds to.
    await this.nonceProofWaits.proven(payout.id);
    if (confirmations < network.confirmations) return;
    // An operator cancelled the payout, and another transaction took the nonce first: nothing of
    // it can be mined either way, and it ends as the operator asked, not signed anew.
    if (attempts.some((attempt) => attempt.purpose === 'cancel')) {
      const reason =
        `Cancelled by an operator: nonce ${latest.nonce} was used by another transaction ` +
        `${consumer.txHash}; nothing was sent.`;
      // Not one of the payout's attempts: its fee, if the wallet paid it, is not the payout's.
      const mined = { txHash: consumer.txHash, feeBaseUnits: null };
      if (await this.outcomes.failProcessing(payout.id, reason, mined)) report.failed += 1;
      return;
    }
    this.logger.warn(
      {
        payoutId: payout.id,
        nonce: latest.nonce,
        usedBy: consumer.txHash,
        block: consumer.blockNumber,
      },
      'Payout nonce was used by a transaction that is none of its attempts',
    );
    await this.resignEvm(payout, attempts, latest, report);
  }

  /**
   * A receipt looked up one by one, counted only where its block is the chain the run follows:
   * a receipt and a head are two backends' words behind a balancer, and one backend may serve a
   * block that lost a fork (review r8, F2). Its confirmations are counted along the run, never
   * against another backend's head. Null for a receipt whose block is not proven so (another
   * hash at its height, not read yet): no proof of anything, the payout waits.
   */
  private async lookUp(
    transport: EvmPayoutTransport,
    tick: Tick,
    txHash: string,
    payout: InFlightPayout,
  ): Promise<TransactionLookup | null> {
    const lookup = await transport.lookup(txHash);
    if (lookup.state !== 'mined') return lookup;
    const confirmations = await tick.blocks?.confirmed(transport, lookup.status);
    if (confirmations === null || confirmations === undefined) {
      // A block above the last one read is only not read yet (a backend ahead answered): the
      // run reads it soon. At or below it, the receipt names a block the run does not have.
      const top = tick.blocks?.top ?? null;
      if (top !== null && lookup.status.blockNumber <= top) {
        this.logger.warn(
          { txHash, block: lookup.status.blockNumber, blockHash: lookup.status.blockHash },
          'Receipt of a block that is not (or not yet proven) the chain read: nothing decided on it',
        );
        // Counted and alerted on as a wait for a proof (review r9a, N3): a block never proven
        // (a run reset past it, a lost fork) holds the payout's funds for good.
        const [latest] = payout.attempts;
        if (latest) await this.nonceProofWaits.unproven(payout.id, payout.network, latest, 'block');
      }
      return null;
    }
    return { ...lookup, status: { ...lookup.status, confirmations } };
  }

  private async replaceEvm(
    payout: InFlightPayout,
    latest: PayoutAttempt,
    transport: EvmPayoutTransport,
    report: TrackReport,
  ): Promise<boolean> {
    // A cancel stays a cancel: the operator bids again with payouts:cancel-nonce if need be.
    if (latest.purpose === 'cancel') return false;
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key || key.address !== latest.wallet_address) {
      report.unreplaceable.push(payout.id);
      return false;
    }
    const fees = this.signer.replacementFees(
      payout.network as NetworkName,
      {
        maxFeePerGas: BigInt(latest.max_fee_per_gas ?? '0'),
        maxPriorityFeePerGas: BigInt(latest.max_priority_fee_per_gas ?? '0'),
      },
      await transport.suggestFees(),
    );
    if (!fees) return false; // at the cap: keep the current bid on the wire
    const gasLimit = await this.replacementGasLimit(transport, payout, latest);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      // A newer attempt (another tick's replacement, an operator's cancel) is what to outbid now.
      if (
        !locked ||
        (await this.journal.newestAttemptNumber(manager, payout.id)) !== latest.attempt_number
      )
        return null;
      return this.signer.journalEvmReplacement(manager, locked, key, latest, fees, gasLimit);
    });
    if (!attempt) return true;
    report.replaced += 1;
    this.logger.log(
      {
        payoutId: payout.id,
        nonce: latest.nonce,
        replaces: latest.tx_hash,
        txHash: attempt.tx_hash,
      },
      'Stuck payout transaction replaced with higher fees',
    );
    await this.broadcaster.broadcast(attempt);
    return true;
  }

  /**
   * The recipient's state may have changed since the first signature (its balance emptied costs
   * about 17k gas more): never less than before, more if an estimate now says so. An estimate
   * that fails keeps the previous limit.
   */
  private async replacementGasLimit(
    transport: EvmPayoutTransport,
    payout: InFlightPayout,
    previous: PayoutAttempt,
  ): Promise<bigint> {
    const before = BigInt(previous.gas_limit ?? '0');
    try {
      const now = await transport.estimateTransferGas(
        previous.wallet_address,
        transferOrder(payout),
      );
      return now > before ? now : before;
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      return before;
    }
  }

  /**
   * Every attempt can never be mined (proven by the caller from `known`, every attempt of the
   * payout then): a new nonce, signed and stored. If any attempt was added or retired since
   * `known` was read (another tick, another worker), the proof is about another set: nothing.
   */
  private async resignEvm(
    payout: InFlightPayout,
    known: PayoutAttempt[],
    proven: PayoutAttempt,
    report: TrackReport,
  ): Promise<void> {
    // The proof is about one nonce of one wallet: every live attempt must carry it.
    const provenDead = (attempt: Pick<PayoutAttempt, 'nonce' | 'wallet_address'>) =>
      String(attempt.nonce) === String(proven.nonce) &&
      attempt.wallet_address === proven.wallet_address;
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return;
    const input = await this.signer.evmInput(payout, key);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (
        !locked ||
        !(await this.journal.attemptsUnchanged(manager, payout.id, known, provenDead))
      ) {
        return null;
      }
      await this.journal.retireAttempts(manager, payout.id, liveIds(known), 'Superseded');
      return this.signer.journalEvmWithNewNonce(manager, locked, key, input);
    });
    if (!attempt) return;
    report.resigned += 1;
    this.logger.warn(
      { payoutId: payout.id, txHash: attempt.tx_hash, nonce: attempt.nonce },
      'Payout signed again with a new nonce',
    );
    await this.broadcaster.broadcast(attempt);
  }
}

/**
 * When a node first took the attempt (or when it was signed): its wait before a replacement runs
 * from there, whatever later re-sends are answered (a replacement sooner is safe: same nonce).
 */
function firstAccepted(attempt: PayoutAttempt): number {
  return new Date(attempt.last_broadcast_at ?? attempt.created_at).getTime();
}

/** When the payout's oldest live attempt was stored: none of them can be mined before that. */
function firstStored(payout: InFlightPayout): number {
  return Math.min(...payout.attempts.map((attempt) => new Date(attempt.created_at).getTime()));
}

/**
 * The payout's latest nonce is below its wallet's mined count (a hint, see EvmPayoutTracking.track).
 */
export function nonceUsed(payout: InFlightPayout, minedCounts: Map<string, number>): boolean {
  const [latest] = payout.attempts;
  if (!latest) return false;
  return Number(latest.nonce) < (minedCounts.get(latest.wallet_address) ?? 0);
}

/** A lower nonce of the attempt's wallet was found missing from the node this tick. */
function behindMissing(attempt: PayoutAttempt, tick: Tick): boolean {
  const missing = tick.missing.get(attempt.wallet_address);
  return missing !== undefined && BigInt(attempt.nonce ?? 0) > missing;
}
