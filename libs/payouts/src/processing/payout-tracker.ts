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
  TronPayoutTransport,
} from '@app/chains';
import { BlocksRead } from './blocks-read';
import { EvmPayoutTracking, nonceUsed } from './evm-payout-tracking';
import { NonceProofWaits } from './nonce-proof-waits';
import { UnregisteredHotWalletError } from './payout-nonces.repository';
import { Tick, TrackReport } from './payout-tick';
import { PayoutTrackerReads } from './payout-tracker-reads.repository';
import { InFlightPayout, PayoutTrackingRepository } from './payout-tracking.repository';
import { StoredHashMismatch } from './stored-bytes';
import { TronPayoutTracking } from './tron-payout-tracking';

// The report of a tick, in a file of its own (issue 28), still importable from here.
export type { TrackReport } from './payout-tick';

// Blocks of a network's run held in memory (with only the service's receipts): far more than a
// receipt waits for its confirmations, or a payout for the window's walk to reach it.
const BLOCKS_KEPT = 1_024;

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
    private readonly tracking: PayoutTrackingRepository,
    private readonly nonceProofWaits: NonceProofWaits,
    private readonly evm: EvmPayoutTracking,
    private readonly tron: TronPayoutTracking,
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
          this.evm.track(network, transport, payout, mined, report, tick),
        );
      }
    } else {
      for (const payout of payouts) {
        await this.isolated(payout, () =>
          this.tron.track(network, transport, payout, report, tick),
        );
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
