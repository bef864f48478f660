import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  ChainAdapters,
  ChainError,
  EvmPayoutTransport,
  NetworkConfig,
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
  TransactionStatus,
  TronPayoutTransport,
} from '@app/chains';
import { HotWallets } from './hot-wallets';
import { PayoutBroadcaster } from './payout-broadcaster';
import {
  InFlightPayout,
  PayoutAttempt,
  PayoutJournalRepository,
} from './payout-journal.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { PayoutSigner } from './payout-signer';

// In-flight payouts followed per tick and network; the rest wait for the next tick.
const BATCH_SIZE = 500;
// A transaction the node does not know is re-broadcast at most this often (dropped from the pool).
const REBROADCAST_AFTER_MS = 3_000;

export interface TrackReport {
  network: NetworkName;
  inFlight: number;
  completed: number;
  failed: number;
  replaced: number;
  rebroadcast: number;
  resigned: number;
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

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly transports: PayoutTransports,
    private readonly adapters: ChainAdapters,
    private readonly journal: PayoutJournalRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
  ) {}

  async track(name: NetworkName): Promise<TrackReport> {
    const network = this.networks.get(name);
    const payouts = await this.journal.inFlight(name, BATCH_SIZE);
    const report: TrackReport = {
      network: name,
      inFlight: payouts.length,
      completed: 0,
      failed: 0,
      replaced: 0,
      rebroadcast: 0,
      resigned: 0,
    };
    if (!payouts.length) return report;
    const transport = this.transports.transportFor(name);
    if (transport.family === 'EVM') {
      const mined = await this.minedCounts(transport, payouts);
      for (const payout of payouts) {
        await this.isolated(payout, () => this.trackEvm(network, transport, payout, mined, report));
      }
    } else {
      for (const payout of payouts) {
        await this.isolated(payout, () => this.trackTron(network, transport, payout, report));
      }
    }
    if (report.completed || report.failed || report.replaced || report.resigned) {
      this.logger.log(report, 'Payouts tracked');
    }
    return report;
  }

  /** One payout's RPC trouble must not stop the others; the next tick tries again. */
  private async isolated(payout: InFlightPayout, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      this.logger.warn(
        { payoutId: payout.id, reason: error.message },
        'Payout not tracked this tick',
      );
    }
  }

  /** Each hot wallet's count of mined transactions: nonces below it are used on chain. */
  private async minedCounts(
    transport: EvmPayoutTransport,
    payouts: InFlightPayout[],
  ): Promise<Map<string, number>> {
    const addresses = new Set(
      payouts.flatMap((payout) => payout.attempts.map((a) => a.wallet_address)),
    );
    const counts = new Map<string, number>();
    for (const address of addresses) {
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
  ): Promise<void> {
    const [latest] = payout.attempts;
    if (!latest) return this.resignEvm(payout, report);
    const nonce = Number(latest.nonce);
    if (nonce < (minedCounts.get(latest.wallet_address) ?? 0)) {
      // The nonce is used on chain: by one of our attempts, or by a transaction from elsewhere.
      for (const attempt of payout.attempts) {
        const lookup = await transport.lookup(attempt.tx_hash);
        if (lookup.state === 'mined')
          return this.onMined(network, payout, attempt, lookup.status, report);
      }
      if (await this.nonceTakenAtConfirmedDepth(network, transport, latest)) {
        return this.resignEvm(payout, report);
      }
      return;
    }
    // Not mined yet. A transaction tried moments ago is left alone; an older one is looked up.
    if (latest.broadcast_count === 0) return this.rebroadcast(latest, report);
    if (Date.now() - lastTried(latest) < REBROADCAST_AFTER_MS) return;
    const lookup = await transport.lookup(latest.tx_hash);
    if (lookup.state === 'mined') {
      return this.onMined(network, payout, latest, lookup.status, report);
    }
    // Not mined long after the node last took it (or never taken since: outbid by the base fee):
    // outbid it with the same nonce.
    if (Date.now() - lastAccepted(latest) >= this.config.payouts.replaceAfterMs) {
      if (await this.replaceEvm(payout, latest, transport, report)) return;
    }
    // Unknown to the node (dropped from the pool, or refused): send the same bytes again.
    if (lookup.state === 'unknown') await this.rebroadcast(latest, report);
  }

  /**
   * Whether the nonce was used by a block at least `confirmations` deep: then no attempt of ours
   * (all carry this nonce, none of them mined) can ever be mined.
   */
  private async nonceTakenAtConfirmedDepth(
    network: NetworkConfig,
    transport: EvmPayoutTransport,
    attempt: PayoutAttempt,
  ): Promise<boolean> {
    const head = await this.adapters.adapterFor(network.name).getHeadBlockNumber();
    const depth = head - network.confirmations + 1;
    if (depth < 0) return false;
    const confirmedCount = await transport.transactionCount(attempt.wallet_address, depth);
    return Number(attempt.nonce) < confirmedCount;
  }

  private async replaceEvm(
    payout: InFlightPayout,
    latest: PayoutAttempt,
    transport: EvmPayoutTransport,
    report: TrackReport,
  ): Promise<boolean> {
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key || key.address !== latest.wallet_address) return false;
    const fees = this.signer.replacementFees(
      payout.network as NetworkName,
      {
        maxFeePerGas: BigInt(latest.max_fee_per_gas ?? '0'),
        maxPriorityFeePerGas: BigInt(latest.max_priority_fee_per_gas ?? '0'),
      },
      await transport.suggestFees(),
    );
    if (!fees) return false; // at the cap: keep the current bid on the wire
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (!locked) return null;
      return this.signer.journalEvmReplacement(manager, locked, key, latest, fees);
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

  /** Every live attempt can never be mined (checked by the caller): a new nonce, signed and stored. */
  private async resignEvm(payout: InFlightPayout, report: TrackReport): Promise<void> {
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return;
    const input = await this.signer.evmInput(payout, key);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (!locked) return null;
      const ids = payout.attempts.map((a) => a.id);
      if (
        (await this.journal.retireAttempts(manager, payout.id, ids, 'Superseded')) !== ids.length
      ) {
        return null; // someone else changed the attempts meanwhile: look again next tick
      }
      return this.signer.journalEvmWithNewNonce(manager, locked, key, input);
    });
    if (!attempt) return;
    report.resigned += 1;
    this.logger.warn(
      { payoutId: payout.id, txHash: attempt.tx_hash, nonce: attempt.nonce },
      'Payout nonce was taken by another transaction; signed again with a new nonce',
    );
    await this.broadcaster.broadcast(attempt);
  }

  private async trackTron(
    network: NetworkConfig,
    transport: TronPayoutTransport,
    payout: InFlightPayout,
    report: TrackReport,
  ): Promise<void> {
    const [latest] = payout.attempts;
    if (!latest) return this.resignTron(payout, [], report);
    const lookup = await transport.lookup(latest.tx_hash);
    if (lookup.state === 'mined')
      return this.onMined(network, payout, latest, lookup.status, report);
    if (lookup.state === 'pending') return;
    if (
      latest.expires_at &&
      (await transport.hasExpired(latest.tx_hash, new Date(latest.expires_at)))
    ) {
      return this.resignTron(payout, [latest], report);
    }
    await this.rebroadcast(latest, report);
  }

  /** The previous transaction expired unmined (proven by the caller): build and sign a new one. */
  private async resignTron(
    payout: InFlightPayout,
    expired: PayoutAttempt[],
    report: TrackReport,
  ): Promise<void> {
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return;
    const signed = await this.signer.buildTron(payout, key);
    const attempt = await this.dataSource.transaction(async (manager) => {
      const locked = await this.journal.lockProcessing(manager, payout.id);
      if (!locked) return null;
      const ids = expired.map((a) => a.id);
      if ((await this.journal.retireAttempts(manager, payout.id, ids, 'Expired')) !== ids.length) {
        return null;
      }
      return this.signer.journalTron(manager, locked, key, signed);
    });
    if (!attempt) return;
    report.resigned += 1;
    await this.broadcaster.broadcast(attempt);
  }

  /** Re-sends the stored bytes of an attempt the node does not know (never sent, or dropped). */
  private async rebroadcast(attempt: PayoutAttempt, report: TrackReport): Promise<void> {
    if (attempt.broadcast_count > 0 && Date.now() - lastTried(attempt) < REBROADCAST_AFTER_MS)
      return;
    report.rebroadcast += 1;
    await this.broadcaster.broadcast(attempt);
  }

  private async onMined(
    network: NetworkConfig,
    payout: InFlightPayout,
    attempt: PayoutAttempt,
    status: TransactionStatus,
    report: TrackReport,
  ): Promise<void> {
    if (status.confirmations < network.confirmations) {
      await this.journal.setTxHash(payout.id, attempt.tx_hash);
      return;
    }
    if (status.succeeded) {
      if (await this.outcomes.complete(payout.id, attempt.tx_hash)) report.completed += 1;
      return;
    }
    const reason =
      `The transaction ${attempt.tx_hash} was mined in block ${status.blockNumber} but failed ` +
      '(reverted: the hot wallet may lack tokens, or the token refused the transfer). Nothing was sent.';
    if (await this.outcomes.failProcessing(payout.id, reason, attempt.tx_hash)) report.failed += 1;
  }
}

/** When we last broadcast the attempt, whatever the node answered. */
function lastTried(attempt: PayoutAttempt): number {
  return new Date(attempt.last_broadcast_at ? attempt.updated_at : attempt.created_at).getTime();
}

/**
 * When the node last accepted the attempt: a dropped and re-sent transaction has been in the pool
 * only since then, so its wait before a replacement starts again.
 */
function lastAccepted(attempt: PayoutAttempt): number {
  return new Date(attempt.last_broadcast_at ?? attempt.created_at).getTime();
}
