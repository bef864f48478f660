import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  ChainError,
  EvmPayoutTransport,
  NetworkConfig,
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
  TransactionLookup,
  TronPayoutTransport,
} from '@app/chains';
import { BlocksRead, MinedLookup } from './blocks-read';
import { HotWallets } from './hot-wallets';
import { NonceProofWaits } from './nonce-proof-waits';
import { PayoutBroadcaster } from './payout-broadcaster';
import {
  InFlightPayout,
  PayoutAttempt,
  PayoutJournalRepository,
  UnregisteredHotWalletError,
} from './payout-journal.repository';
import { PayoutNoncesRepository } from './payout-nonces.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { PayoutSigner, transferOrder } from './payout-signer';
import { PayoutTrackerReads } from './payout-tracker-reads.repository';
import { PayoutTrackingRepository } from './payout-tracking.repository';
import { StoredHashMismatch } from './stored-bytes';

// A transaction the node does not know is re-broadcast at most this often (dropped from the pool).
const REBROADCAST_AFTER_MS = 3_000;
// Blocks of a network's run held in memory (with only the service's receipts): far more than a
// receipt waits for its confirmations, or a payout for the window's walk to reach it.
const BLOCKS_KEPT = 1_024;

/** What one tick shares between its payouts. */
interface Tick {
  /** The database's clock now (read with the window, then moved on by ours): every time compared
   * here was written by PostgreSQL, and another host's clock must not matter (review r6, L1). */
  now(): number;
  /**
   * Per wallet, the lowest nonce the node was found not to have this tick (unknown, and not taken
   * back when re-sent): its later nonces cannot be mined before it, and outbidding them only buys
   * fees. Filled in nonce order (the window is walked by wallet and nonce).
   */
  missing: Map<string, bigint>;
  /** EVM: the blocks read so far, whose receipts prove a transaction mined (null on TRON). */
  blocks: BlocksRead | null;
}

export interface TrackReport {
  network: NetworkName;
  inFlight: number;
  completed: number;
  failed: number;
  replaced: number;
  rebroadcast: number;
  resigned: number;
  /**
   * Payouts whose stuck transaction is due for a replacement that no key here can sign (its
   * wallet's key was rotated or removed): `payouts:cancel-nonce --key-file` is their way out.
   */
  unreplaceable: string[];
}

/**
 * Follows `Processing` payouts to their end: completes or fails them on the chain's word, re-sends
 * stored bytes the node lost, replaces stuck EVM transactions (same nonce, higher fees), and signs
 * anew only with proof that no earlier attempt can ever be mined (its nonce is taken at a
 * confirmed depth by another transaction, or, on TRON, it expired before the solidified head).
 */
@Injectable()
export class PayoutTracker {
  private readonly logger = new Logger(PayoutTracker.name);
  /** Per network, the last payout id the window's walk took: the next tick goes on after it. */
  private readonly walked = new Map<string, string | null>();
  /** Per EVM network, the blocks read so far (receipts per block, not per payout). */
  private readonly blocksRead = new Map<string, BlocksRead>();
  private readonly reads: PayoutTrackerReads;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly journal: PayoutJournalRepository,
    private readonly nonces: PayoutNoncesRepository,
    private readonly tracking: PayoutTrackingRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
    private readonly nonceProofWaits: NonceProofWaits,
  ) {
    this.reads = new PayoutTrackerReads(dataSource);
  }

  /**
   * One tick for a network. Ticks of a network never overlap, in one worker or across workers
   * (Bull starts the next repeat while one runs): a tick signs from a snapshot that another
   * tick's replacement would make stale. An overlapping call returns null at once.
   */
  async track(name: NetworkName): Promise<TrackReport | null> {
    return (await this.tracking.whileTrackingLocked(name, () => this.trackOnce(name))) ?? null;
  }

  private async trackOnce(name: NetworkName): Promise<TrackReport> {
    const network = this.networks.get(name);
    const transport = this.transports.transportFor(name);
    const { payouts, clock, mined } = await this.window(name, transport);
    const report: TrackReport = {
      network: name,
      inFlight: payouts.length,
      completed: 0,
      failed: 0,
      replaced: 0,
      rebroadcast: 0,
      resigned: 0,
      unreplaceable: [],
    };
    if (!payouts.length || !clock) return report;
    const skew = clock.getTime() - Date.now();
    const tick: Tick = { now: () => Date.now() + skew, missing: new Map(), blocks: null };
    if (transport.family === 'EVM') {
      // After the counts (window): every nonce they call used is in a block up to this head.
      tick.blocks = await this.readBlocks(network, transport, tick.now);
      await this.nonceProofWaits.nonceUnused(
        payouts.filter((payout) => !nonceUsed(payout, mined)).map((payout) => payout.id),
      );
      for (const payout of payouts) {
        await this.isolated(payout, () =>
          this.trackEvm(network, transport, payout, mined, report, tick),
        );
      }
    } else {
      for (const payout of payouts) {
        await this.isolated(payout, () => this.trackTron(network, transport, payout, report, tick));
      }
    }
    if (report.completed || report.failed || report.replaced || report.resigned) {
      this.logger.log(report, 'Payouts tracked');
    }
    if (report.unreplaceable.length) {
      this.logger.warn(
        { network: name, payoutIds: report.unreplaceable },
        'Stuck payout transactions signed by a key this worker does not hold: no replacement can ' +
          'be signed. The way out: npm run cli -- payouts:cancel-nonce --network NETWORK ' +
          '--nonce N --key-file PATH (the key of the wallet that signed them)',
      );
    }
    return report;
  }

  /** One payout's RPC trouble must not stop the others; the next tick tries again. */
  private async isolated(payout: InFlightPayout, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof StoredHashMismatch) {
        // A signing bug on this payout's replacement or re-sign: nothing of it was stored or sent
        // (thrown inside the journaling transaction), and the payout stays Processing with its
        // funds held and its earlier attempts on the wire. Rethrown, it aborted the network's
        // whole tick, every tick (review r9a, N6): no other payout of the network was decided.
        this.logger.error(
          { payoutId: payout.id, network: payout.network, txHash: error.txHash },
          'Payout held: a transaction signed for it does not hash to its stored hash (a signing ' +
            'bug). Nothing was stored or sent; it stays Processing with its funds held, and the ' +
            "network's other payouts are tracked on. Fix the signer, or end the nonce with " +
            'payouts:cancel-nonce (docs/operations.md)',
        );
        return;
      }
      if (!(error instanceof ChainError) && !(error instanceof UnregisteredHotWalletError)) {
        throw error;
      }
      this.logger.warn(
        { payoutId: payout.id, reason: error.message },
        'Payout not tracked this tick',
      );
    }
  }

  /**
   * The payouts this tick looks at (`PAYOUT_TRACK_WINDOW`), with the database's clock at the
   * read. EVM: half of the window at most goes to each wallet's lowest unmined nonces, every tick
   * (they hold up every later nonce: one dropped from the pool and never looked at again stalled
   * the wallet for good, review r6 M1); the rest, and on TRON all of it, is walked by a cursor over
   * every payout in flight, so each is looked at within about 2 x in-flight / window ticks. EVM
   * payouts come in wallet and nonce order: a lower nonce's state is known before a higher one
   * is outbid.
   */
  private async window(
    name: NetworkName,
    transport: EvmPayoutTransport | TronPayoutTransport,
  ): Promise<{ payouts: InFlightPayout[]; clock: Date | null; mined: Map<string, number> }> {
    const limit = this.config.payouts.trackWindow;
    const after = this.walked.get(name) ?? null;
    if (transport.family !== 'EVM') {
      const read = await this.tracking.inFlight(name, { limit, after });
      this.walked.set(name, read.walked);
      return { payouts: read.payouts, clock: read.clock, mined: new Map() };
    }
    const mined = await this.minedCounts(transport, await this.tracking.inFlightWallets(name));
    const half = Math.floor(limit / 2);
    const read = await this.tracking.inFlight(name, {
      limit,
      after,
      lowest: { minedCounts: mined, perWallet: half, total: half },
    });
    this.walked.set(name, read.walked);
    // A wallet first seen in the window (a claim committed between the two reads).
    const others = read.payouts
      .flatMap((payout) => payout.attempts.map((attempt) => attempt.wallet_address))
      .filter((address) => !mined.has(address));
    for (const [address, count] of await this.minedCounts(transport, others)) {
      mined.set(address, count);
    }
    return { payouts: read.payouts.sort(byWalletAndNonce), clock: read.clock, mined };
  }

  /**
   * The blocks since the last tick, with the receipts of the service's transactions in them: one
   * eth_blockNumber, a header per block, and one receipts read per block holding ours. A failed
   * read leaves what was read; the payouts found in no block read are looked up one by one.
   */
  private async readBlocks(
    network: NetworkConfig,
    transport: EvmPayoutTransport,
    now: () => number,
  ): Promise<BlocksRead> {
    let blocks = this.blocksRead.get(network.name);
    if (!blocks) {
      blocks = new BlocksRead(Math.max(BLOCKS_KEPT, 4 * network.confirmations));
      this.blocksRead.set(network.name, blocks);
    }
    try {
      await blocks.advance(
        transport,
        (txHashes) => this.reads.ourTransactions(network.name, txHashes),
        now,
      );
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      this.logger.warn(
        { network: network.name, reason: error.message, lastRead: blocks.top },
        'Blocks not read this tick; their payouts are looked up one by one, and decided only ' +
          'on a block the blocks read prove the chain (review r9a)',
      );
    }
    return blocks;
  }

  /** Each hot wallet's count of mined transactions: nonces below it are used on chain. */
  private async minedCounts(
    transport: EvmPayoutTransport,
    addresses: string[],
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const address of new Set(addresses)) {
      counts.set(address, await transport.transactionCount(address, 'latest'));
    }
    return counts;
  }

  private async trackEvm(
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
      if (mined) return this.onMined(network, payout, attempt, mined, report);
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
        if (lookup.state === 'mined') return this.onMined(network, payout, attempt, lookup, report);
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
      if (await this.reads.neverBroadcast(latest.id)) await this.rebroadcast(latest, report, tick);
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
    if (lookup.state === 'mined') return this.onMined(network, payout, latest, lookup, report);
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
    if (lookup.state === 'unknown' && (await this.rebroadcast(latest, report, tick)) !== true) {
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
        await this.onMined(network, payout, own, lookup, report);
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

  private async trackTron(
    network: NetworkConfig,
    transport: TronPayoutTransport,
    payout: InFlightPayout,
    report: TrackReport,
    tick: Tick,
  ): Promise<void> {
    const [latest] = payout.attempts;
    if (!latest) return;
    const lookup = await transport.lookup(latest.tx_hash);
    if (lookup.state === 'mined') return this.onMined(network, payout, latest, lookup, report);
    if (lookup.state === 'pending') return;
    // "Unknown" is an absence (a backend behind may not have it yet): only the blocks of its
    // whole window, read and without it, prove it will never be mined.
    // (The chain's clock decides, not ours: the proof starts from the solidified head's time.)
    const known = await this.journal.attemptsOf(payout.id);
    if (await transport.provenExpired(latest.raw_transaction)) {
      return this.resignTron(payout, known, latest, report);
    }
    await this.rebroadcast(latest, report, tick);
  }

  /** The live transaction expired unmined (proven by the caller from `known`): a new one. */
  private async resignTron(
    payout: InFlightPayout,
    known: PayoutAttempt[],
    proven: PayoutAttempt,
    report: TrackReport,
  ): Promise<void> {
    // The proof is about one transaction: it must be the only live attempt.
    const provenDead = (attempt: Pick<PayoutAttempt, 'tx_hash'>) =>
      attempt.tx_hash === proven.tx_hash;
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return;
    const signed = await this.signer.buildTron(payout, key);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (
        !locked ||
        !(await this.journal.attemptsUnchanged(manager, payout.id, known, provenDead))
      ) {
        return null;
      }
      // Only the registered wallet signs (two workers may hold different key files).
      await this.nonces.lockWalletNonce(manager, payout.network, key.address);
      await this.journal.retireAttempts(manager, payout.id, liveIds(known), 'Expired');
      return this.signer.journalTron(manager, locked, key, signed);
    });
    if (!attempt) return;
    report.resigned += 1;
    await this.broadcaster.broadcast(attempt);
  }

  /**
   * Re-sends the stored bytes of an attempt the node does not know (never sent, or dropped).
   * Whether the node took them: null when not sent (tried less than 3 s ago).
   */
  private async rebroadcast(
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

  private async onMined(
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

/** When we last broadcast the attempt, whatever the node answered (or when it was signed). */
function lastTried(attempt: PayoutAttempt): number {
  return new Date(attempt.broadcast_count > 0 ? attempt.updated_at : attempt.created_at).getTime();
}

function liveIds(attempts: PayoutAttempt[]): string[] {
  return attempts
    .filter((attempt) => attempt.status === 'Signed' || attempt.status === 'Broadcast')
    .map((attempt) => attempt.id);
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

/** The payout's latest nonce is below its wallet's mined count (a hint, see trackEvm). */
function nonceUsed(payout: InFlightPayout, minedCounts: Map<string, number>): boolean {
  const [latest] = payout.attempts;
  if (!latest) return false;
  return Number(latest.nonce) < (minedCounts.get(latest.wallet_address) ?? 0);
}

/** A lower nonce of the attempt's wallet was found missing from the node this tick. */
function behindMissing(attempt: PayoutAttempt, tick: Tick): boolean {
  const missing = tick.missing.get(attempt.wallet_address);
  return missing !== undefined && BigInt(attempt.nonce ?? 0) > missing;
}

/** By the live attempt's wallet, then nonce (the order the chain mines a wallet's transactions). */
function byWalletAndNonce(a: InFlightPayout, b: InFlightPayout): number {
  const [x] = a.attempts;
  const [y] = b.attempts;
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  if (x.wallet_address !== y.wallet_address) return x.wallet_address < y.wallet_address ? -1 : 1;
  const [m, n] = [BigInt(x.nonce ?? 0), BigInt(y.nonce ?? 0)];
  return m < n ? -1 : m > n ? 1 : 0;
}
