import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  ChainAdapter,
  ChainAdapters,
  ChainError,
  NetworkConfig,
  NetworkName,
  NetworkRegistry,
  NotYetError,
} from '@app/chains';
import { WatcherStatusRepository } from './networks-status/watcher-status.repository';
import { UnmatchedTransferBooks } from './unmatched-transfers/unmatched-transfer-books';
import { UnmatchedTransfersRepository } from './unmatched-transfers/unmatched-transfers.repository';
import { ChainCursorsRepository } from './chain-cursors.repository';
import { DEPOSIT_SETTLEMENT, DepositSettlement } from './deposit-settlement.port';
import { DetectedTransfersRepository } from './detected-transfers.repository';
import { staleHeadMs } from './poll-interval';
import { planScan, ScanPlan, watchedDepth } from './scan-plan';
import { ScanTick } from './scan-tick';
import { TransferMatcher } from './transfer-matcher';
import { WatchedTokens } from './watched-tokens';

// A new cursor starts this far below the head, so payments made before the first scan are found.
const START_LOOKBACK_BLOCKS = 100;
// A head this many blocks below the cursor is a URL that is behind, not a load-balanced answer a
// block late or another worker's tick that saw a newer head.
const BEHIND_MARGIN_BLOCKS = 2;
// How often an idle tick (head unchanged) is written to the watcher's status.
const IDLE_STATUS_INTERVAL_MS = 5_000;

export interface ScanReport {
  network: NetworkName;
  /** True when another worker committed first (or holds the network): nothing was written. */
  skipped: boolean;
  /** True when the head had not moved since `sinceHead`: nothing was read past the head. */
  idle: boolean;
  /**
   * True when the node lacked blocks this tick meant to read (a lagging backend): the cursor
   * stopped below them. Not yet, not a failure: the next tick comes after the poll interval.
   */
  waiting: boolean;
  head: number;
  cursor: number;
  /** Blocks undone by a reorg found in this tick (0 without one). */
  reorgDepth: number;
  detected: number;
  confirmed: number;
  reverted: number;
  unmatched: number;
}

/**
 * One tick of deposit detection on one network, in two halves. First the chain is read without
 * any lock: head, fork point (from the hashes of the blocks remembered last time), transfers and
 * block hashes. Then one short transaction, taken only if no other tick committed meanwhile
 * (compare-and-set on the cursor's version), applies it: reverts, new transfers, confirmations,
 * session settlement, remembered blocks and the cursor commit together. A crash or RPC failure at
 * any point loses nothing and repeats nothing; a second worker's tick is skipped.
 */
@Injectable()
export class DepositWatcherService {
  private readonly logger = new Logger(DepositWatcherService.name);
  private readonly idleRecordedAt = new Map<NetworkName, number>();
  /** Per network, the last head read and when it was first read. */
  private readonly headSeen = new Map<NetworkName, { head: number; since: number }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly adapters: ChainAdapters,
    private readonly cursors: ChainCursorsRepository,
    private readonly transfers: DetectedTransfersRepository,
    @Inject(DEPOSIT_SETTLEMENT) private readonly settlement: DepositSettlement,
    private readonly matcher: TransferMatcher,
    private readonly watchedTokens: WatchedTokens,
    private readonly unmatched: UnmatchedTransfersRepository,
    private readonly unmatchedBooks: UnmatchedTransferBooks,
    private readonly status: WatcherStatusRepository,
  ) {}

  /**
   * One tick. With `sinceHead` (the head the caller's last complete tick reached), a head that has
   * not moved ends the tick after one call: the loop that follows heads polls often and cheaply.
   */
  async scan(networkName: NetworkName, sinceHead?: number): Promise<ScanReport> {
    try {
      const report = await this.scanOnce(networkName, sinceHead);
      await this.recordSuccess(report);
      return report;
    } catch (error) {
      // An absence is not a failure (a lagging backend of a load-balanced URL): a network held
      // by one would otherwise look delayed, three of them in a row.
      if (error instanceof ChainError && !(error instanceof NotYetError)) {
        // The status is a report, not part of the tick: its own failure must not hide the RPC's.
        await this.status.recordFailure(networkName, error.message).catch((statusError) => {
          this.logger.warn(
            { network: networkName, reason: String(statusError) },
            'Status not saved',
          );
        });
      }
      throw error;
    }
  }

  /**
   * A committed tick is a success; so is an idle one (the node answered, the head had not moved),
   * recorded at most every IDLE_STATUS_INTERVAL_MS so a quiet chain does not look stalled.
   */
  private async recordSuccess(report: ScanReport): Promise<void> {
    const now = Date.now();
    if (report.idle) {
      const last = this.idleRecordedAt.get(report.network) ?? 0;
      if (now - last < IDLE_STATUS_INTERVAL_MS) return;
    } else if (report.skipped) {
      return;
    }
    this.idleRecordedAt.set(report.network, now);
    await this.status.recordSuccess(report.network, report.head, report.cursor);
  }

  private async scanOnce(networkName: NetworkName, sinceHead?: number): Promise<ScanReport> {
    const network = this.networks.get(networkName);
    const adapter = this.adapters.adapterFor(networkName);
    const head = await adapter.getHeadBlockNumber();
    this.noticeStaleHead(network, adapter, head);
    if (head === sinceHead) return idleReport(networkName, head);
    if (sinceHead !== undefined && head < sinceHead) {
      // Below a head already followed: a backend or URL that is behind. Nothing to read there.
      if (head < sinceHead - BEHIND_MARGIN_BLOCKS) adapter.preferNextProvider();
      throw new NotYetError(`the node is at block ${head}, behind block ${sinceHead}`, networkName);
    }
    const reader = this.dataSource.manager;
    // The cursor first, even on a tick the token check below holds: a network held from its
    // first tick on still gets its starting point then, not only when it is released (its new
    // cursor would start 100 blocks below that later head, past the payments made meanwhile).
    const state = await this.cursors.read(
      reader,
      networkName,
      Math.max(head - START_LOOKBACK_BLOCKS, -1),
    );
    if (head < state.lastScannedBlock - BEHIND_MARGIN_BLOCKS) {
      // The URL that answered is behind blocks already scanned: a backup that answered during the
      // first URL's outage. Calls stick to the URL that answered last, so without this every
      // tick would ask it again (planScan refuses the tick) until it caught up.
      adapter.preferNextProvider();
    }
    const tokens = await this.tokensOf(network, adapter);
    // Transfers within the watched depth of the cursor, not only of the head: after a long stop
    // the cursor is far below the head, and a reorg under the cursor must still be undone.
    const openFrom = Math.max(
      Math.min(head, state.lastScannedBlock) - watchedDepth(network.confirmations),
      0,
    );
    // Pending transfers at any depth (a watcher stopped for long finds them below the window).
    const openHeights = [
      ...(await this.transfers.findRevertible(reader, networkName, openFrom)),
      ...(await this.unmatched.findOpenFrom(reader, networkName, openFrom)),
    ].map((transfer) => Number(transfer.block_number));
    const plan = await planScan({
      adapter,
      head,
      state,
      confirmations: network.confirmations,
      contracts: [...tokens.keys()],
      openHeights,
    });
    const report: ScanReport = {
      network: networkName,
      skipped: true,
      idle: false,
      waiting: plan.waiting,
      head: plan.head,
      cursor: plan.previousCursor,
      reorgDepth: Math.max(plan.previousCursor - plan.forkPoint, 0),
      detected: 0,
      confirmed: 0,
      reverted: 0,
      unmatched: 0,
    };
    const applied = await this.dataSource.transaction(async (manager) => {
      if (!(await this.cursors.lockAtVersion(manager, networkName, plan.version))) return false;
      const tick = new ScanTick(manager, networkName, plan);
      await this.revertReorged(tick, openFrom, report);
      const { detected, unmatched } = await this.matcher.match(
        manager,
        networkName,
        tokens,
        plan.found,
      );
      report.unmatched = await this.unmatched.record(manager, unmatched);
      // A backlog's transfers are often deep enough already: written Confirmed at once (the
      // tick's own logs vouch for their blocks), saving a second pass over each.
      const deepest = plan.head - network.confirmations + 1;
      // The books follow the unmatched transfers' state in this same transaction: reorged ones
      // reversed, confirmed ones booked (below the watched window, nothing is left to check).
      await this.unmatchedBooks.reverseReverted(manager, networkName);
      await this.unmatchedBooks.bookConfirmed(
        manager,
        networkName,
        deepest,
        (transfer) => tick.canonical(transfer) || Number(transfer.block_number) < openFrom,
      );
      const written = await this.transfers.insertDetected(
        manager,
        detected.map((transfer) => ({ ...transfer, confirmed: transfer.blockNumber <= deepest })),
      );
      for (const transfer of written) {
        tick.note(transfer.session_id, {
          transactionId: transfer.id,
          kind: 'detected',
          previousStatus: transfer.inserted ? null : 'Reverted',
        });
        report.detected += 1;
        if (transfer.status !== 'Confirmed') continue;
        tick.note(transfer.session_id, {
          transactionId: transfer.id,
          kind: 'confirmed',
          previousStatus: 'Pending',
        });
        report.confirmed += 1;
      }
      await this.confirmMature(tick, network.confirmations, report);
      await this.settlement.settleMany(manager, tick.changesBySession());
      await this.cursors.save(manager, networkName, {
        lastScannedBlock: plan.scanTo,
        keepUpTo: plan.scanTo,
        blocks: plan.remember,
        forgetBelow: plan.scanTo - watchedDepth(network.confirmations) + 1,
      });
      return true;
    });
    if (!applied) return report;
    report.skipped = false;
    report.cursor = plan.scanTo;
    this.logTick(plan, report);
    return report;
  }

  /**
   * The network's tokens, or the reason it is held (WatchedTokens.of). A contract that did not
   * answer decimals() may be one URL's answer (a node not synced answers "0x"): the next tick asks
   * the next URL, since calls stick to a URL that answers without failing.
   */
  private async tokensOf(network: NetworkConfig, adapter: ChainAdapter) {
    try {
      return await this.watchedTokens.of(network, adapter);
    } catch (error) {
      if (this.watchedTokens.unverifiedTokens().some((token) => token.network === network.name)) {
        adapter.preferNextProvider();
      }
      throw error;
    }
  }

  /**
   * A head unchanged for far longer than the chain's pace may be a stuck URL that answers without
   * failing (it would look like a quiet chain): ask the next URL once per such period. A URL that
   * is ahead answers and becomes the one asked; with one URL this changes nothing.
   */
  private noticeStaleHead(network: NetworkConfig, adapter: ChainAdapter, head: number): void {
    const now = Date.now();
    const seen = this.headSeen.get(network.name);
    if (!seen || seen.head !== head) {
      this.headSeen.set(network.name, { head, since: now });
      return;
    }
    if (now - seen.since < staleHeadMs(network)) return;
    seen.since = now;
    if (network.rpcUrls.length < 2) return;
    this.logger.warn(
      { network: network.name, head, unchangedForMs: staleHeadMs(network) },
      'No new block for far longer than the chain takes; asking the next RPC URL',
    );
    adapter.preferNextProvider();
  }

  /** Reverts open transfers whose block the chain replaced: a real hash mismatch, nothing less. */
  private async revertReorged(tick: ScanTick, openFrom: number, report: ScanReport): Promise<void> {
    const open = await this.transfers.findRevertible(tick.manager, tick.network, openFrom);
    const dropped = open.filter((transfer) => tick.replaced(transfer));
    for (const transfer of dropped) {
      tick.reverted.add(transfer.id);
      tick.note(transfer.session_id, {
        transactionId: transfer.id,
        kind: 'reverted',
        previousStatus: transfer.status,
      });
    }
    await this.transfers.markReverted(
      tick.manager,
      dropped.map((transfer) => transfer.id),
    );
    report.reverted += dropped.length;
    const openUnmatched = await this.unmatched.findOpenFrom(tick.manager, tick.network, openFrom);
    await this.unmatched.markReverted(
      tick.manager,
      openUnmatched.filter((transfer) => tick.replaced(transfer)).map((transfer) => transfer.id),
    );
  }

  /** Confirms pending transfers deep enough under the head whose block is still the chain's. */
  private async confirmMature(
    tick: ScanTick,
    confirmations: number,
    report: ScanReport,
  ): Promise<void> {
    const deepest = tick.plan.head - confirmations + 1;
    const mature = (await this.transfers.findPendingUpTo(tick.manager, tick.network, deepest))
      // A transfer whose block could not be checked waits for a tick that can.
      .filter((transfer) => tick.canonical(transfer));
    await this.transfers.markConfirmed(
      tick.manager,
      mature.map((transfer) => transfer.id),
    );
    for (const transfer of mature) {
      tick.note(transfer.session_id, {
        transactionId: transfer.id,
        kind: 'confirmed',
        previousStatus: 'Pending',
      });
    }
    report.confirmed += mature.length;
  }

  private logTick(plan: ScanPlan, report: ScanReport): void {
    if (plan.deepReorg) {
      this.logger.error(
        { ...report, forkPoint: plan.forkPoint },
        'Reorg deeper than the watched window: transfers below it were not re-checked',
      );
    } else if (report.reorgDepth > 0) {
      this.logger.warn({ ...report, forkPoint: plan.forkPoint }, 'Reorg: rescanned from the fork');
    } else if (report.detected || report.confirmed || report.reverted || report.unmatched) {
      this.logger.log(report, 'Deposits scanned');
    }
  }
}

function idleReport(network: NetworkName, head: number): ScanReport {
  return {
    network,
    skipped: true,
    idle: true,
    waiting: false,
    head,
    cursor: head,
    reorgDepth: 0,
    detected: 0,
    confirmed: 0,
    reverted: 0,
    unmatched: 0,
  };
}
