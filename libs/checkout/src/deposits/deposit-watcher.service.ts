import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import {
  ChainAdapter,
  ChainAdapters,
  NetworkName,
  NetworkRegistry,
  TokenTransfer,
} from '@app/chains';
import { SessionSettlementService } from '../settlement/session-settlement.service';
import { ChainCursorsRepository } from './chain-cursors.repository';
import { TransactionChange } from '../settlement/session-events';
import {
  DetectedTransfer,
  DetectedTransfersRepository,
  OpenTransfer,
} from './detected-transfers.repository';
import { tokensByContract, WatchedToken } from './token-index';

// A new cursor starts this far below the head, so payments made before the first scan are found.
const START_LOOKBACK_BLOCKS = 100;
// Confirmed transfers stay under watch this many blocks past their confirmations: a deeper reorg
// than the configured confirmations is rare, but a devnet with 1 confirmation must survive one.
const REORG_SAFETY_BLOCKS = 64;
// Bounded work per tick keeps the transaction (and its row lock) short; the next tick continues.
const MAX_RANGES_PER_TICK = 20;
// Block-hash lookups in flight at once while re-checking recent transfers.
const BLOCK_HASH_CONCURRENCY = 8;

export interface ScanReport {
  network: NetworkName;
  skipped: boolean;
  head: number;
  cursor: number;
  detected: number;
  confirmed: number;
  reverted: number;
}

/**
 * One tick of deposit detection on one network. Everything happens in one transaction holding the
 * network's cursor row: new transfers, confirmations, reverts, session settlement and the cursor
 * move commit together, so a crash or RPC failure at any point loses nothing and repeats nothing,
 * and a second worker skips the network instead of double-counting.
 */
@Injectable()
export class DepositWatcherService {
  private readonly logger = new Logger(DepositWatcherService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly adapters: ChainAdapters,
    private readonly cursors: ChainCursorsRepository,
    private readonly transfers: DetectedTransfersRepository,
    private readonly settlement: SessionSettlementService,
  ) {}

  async scan(networkName: NetworkName): Promise<ScanReport> {
    const network = this.networks.get(networkName);
    const adapter = this.adapters.adapterFor(networkName);
    const tokens = tokensByContract(network);
    const head = await adapter.getHeadBlockNumber();
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.cursors.lock(
        manager,
        networkName,
        Math.max(head - START_LOOKBACK_BLOCKS, -1),
      );
      const report: ScanReport = {
        network: networkName,
        skipped: locked === null,
        head,
        cursor: locked ?? -1,
        detected: 0,
        confirmed: 0,
        reverted: 0,
      };
      if (locked === null) return report;
      const tick = new ScanTick(manager, adapter, head);
      // A rolled-back or restarted chain can be behind the cursor; rescan from its head.
      let cursor = Math.min(locked, head);
      cursor = Math.min(
        cursor,
        await this.revertDroppedTransfers(tick, network.confirmations, report),
      );
      cursor = await this.scanNewBlocks(tick, cursor, networkName, tokens, report);
      cursor = Math.min(
        cursor,
        await this.confirmMatureTransfers(tick, network.confirmations, report),
      );
      for (const sessionId of [...tick.touchedSessions].sort()) {
        await this.settlement.settle(manager, sessionId, tick.changesOf(sessionId));
      }
      await this.cursors.save(manager, networkName, cursor);
      report.cursor = cursor;
      if (report.detected || report.confirmed || report.reverted) {
        this.logger.log(report, 'Deposits scanned');
      }
      return report;
    });
  }

  /** Re-checks recent transfers against the canonical chain; returns the height to rescan from. */
  private async revertDroppedTransfers(
    tick: ScanTick,
    confirmations: number,
    report: ScanReport,
  ): Promise<number> {
    const open = await this.transfers.findOpenFrom(
      tick.manager,
      tick.adapter.network.name,
      Math.max(tick.head - confirmations - REORG_SAFETY_BLOCKS, 0),
    );
    return this.revertIfDropped(tick, open, report);
  }

  private async scanNewBlocks(
    tick: ScanTick,
    cursor: number,
    network: NetworkName,
    tokens: Map<string, WatchedToken>,
    report: ScanReport,
  ): Promise<number> {
    const contracts = [...tokens.keys()];
    for (let ranges = 0; cursor < tick.head && ranges < MAX_RANGES_PER_TICK; ranges++) {
      const toBlock = Math.min(tick.head, cursor + tick.adapter.maxScanRange);
      const found = await tick.adapter.scanTransfers(cursor + 1, toBlock, contracts);
      const detected = await this.matchToSessions(tick.manager, network, tokens, found);
      for (const transfer of found) tick.blockHashes.set(transfer.blockNumber, transfer.blockHash);
      const inserted = await this.transfers.insertPending(tick.manager, detected);
      for (const transfer of inserted) {
        tick.note(transfer.session_id, {
          transactionId: transfer.id,
          kind: 'detected',
          previousStatus: transfer.inserted ? null : 'Reverted',
        });
      }
      report.detected += inserted.length;
      cursor = toBlock;
    }
    return cursor;
  }

  /** Keeps only transfers of a session's own token to its pay address; one query per range. */
  private async matchToSessions(
    manager: EntityManager,
    network: NetworkName,
    tokens: Map<string, WatchedToken>,
    found: TokenTransfer[],
  ): Promise<DetectedTransfer[]> {
    const sessions = await this.transfers.findSessionsByPayAddress(manager, network, [
      ...new Set(found.map((transfer) => transfer.to)),
    ]);
    const byAddress = new Map(sessions.map((session) => [session.pay_address, session]));
    const detected: DetectedTransfer[] = [];
    for (const transfer of found) {
      const session = byAddress.get(transfer.to);
      const token = tokens.get(transfer.tokenContract);
      if (!session || !token) continue;
      if (session.currency_contract !== transfer.tokenContract) {
        this.logger.warn(
          { network, session: session.id, txHash: transfer.txHash, token: token.currency },
          'Transfer of another token to a pay address: not credited, needs manual recovery',
        );
        continue;
      }
      detected.push({
        sessionId: session.id,
        network,
        currency: token.currency,
        tokenContract: transfer.tokenContract,
        fromAddress: transfer.from,
        toAddress: transfer.to,
        txHash: transfer.txHash,
        logIndex: transfer.logIndex,
        amount: new Decimal(transfer.amountBaseUnits.toString())
          .dividedBy(new Decimal(10).pow(token.decimals))
          .toFixed(),
        amountBaseUnits: transfer.amountBaseUnits.toString(),
        blockNumber: transfer.blockNumber,
        blockHash: transfer.blockHash,
      });
    }
    return detected;
  }

  /** Confirms pending transfers deep enough under the head, if their block is still canonical. */
  private async confirmMatureTransfers(
    tick: ScanTick,
    confirmations: number,
    report: ScanReport,
  ): Promise<number> {
    const deepest = tick.head - confirmations + 1;
    const mature = await this.transfers.findPendingUpTo(
      tick.manager,
      tick.adapter.network.name,
      deepest,
    );
    const rescanFrom = await this.revertIfDropped(tick, mature, report);
    const stillCanonical = mature.filter((transfer) => !tick.reverted.has(transfer.id));
    await this.transfers.markConfirmed(
      tick.manager,
      stillCanonical.map((transfer) => transfer.id),
    );
    for (const transfer of stillCanonical) {
      tick.note(transfer.session_id, {
        transactionId: transfer.id,
        kind: 'confirmed',
        previousStatus: 'Pending',
      });
    }
    report.confirmed += stillCanonical.length;
    return rescanFrom;
  }

  /** Reverts transfers whose block is gone or replaced; returns the height to rescan from. */
  private async revertIfDropped(
    tick: ScanTick,
    transfers: OpenTransfer[],
    report: ScanReport,
  ): Promise<number> {
    let rescanFrom = Number.MAX_SAFE_INTEGER;
    const dropped: string[] = [];
    await tick.prefetchBlockHashes(transfers.map((transfer) => Number(transfer.block_number)));
    for (const transfer of transfers) {
      const blockNumber = Number(transfer.block_number);
      if ((await tick.blockHash(blockNumber)) === transfer.block_hash) continue;
      dropped.push(transfer.id);
      tick.reverted.add(transfer.id);
      tick.note(transfer.session_id, {
        transactionId: transfer.id,
        kind: 'reverted',
        previousStatus: transfer.status,
      });
      // The transaction may be mined again in another block: scan that height once more.
      rescanFrom = Math.min(rescanFrom, blockNumber - 1);
    }
    await this.transfers.markReverted(tick.manager, dropped);
    report.reverted += dropped.length;
    return rescanFrom;
  }
}

/** What one scan tick has learned so far. */
class ScanTick {
  readonly touchedSessions = new Set<string>();
  readonly reverted = new Set<string>();
  /** Per session, its transfers' changes in the order they happened (for its events). */
  private readonly changes = new Map<string, TransactionChange[]>();
  readonly blockHashes = new Map<number, string | null>();

  constructor(
    readonly manager: EntityManager,
    readonly adapter: ChainAdapter,
    readonly head: number,
  ) {}

  note(sessionId: string, change: TransactionChange): void {
    this.touchedSessions.add(sessionId);
    const changes = this.changes.get(sessionId) ?? [];
    changes.push(change);
    this.changes.set(sessionId, changes);
  }

  changesOf(sessionId: string): TransactionChange[] {
    return this.changes.get(sessionId) ?? [];
  }

  /**
   * Fetches the hashes of these heights a few at a time: with a hosted RPC at ~50 ms a call, one
   * call after another over a reorg window of dozens of blocks would outlast the scan interval.
   */
  async prefetchBlockHashes(blockNumbers: number[]): Promise<void> {
    const missing = [...new Set(blockNumbers)].filter(
      (blockNumber) => blockNumber <= this.head && !this.blockHashes.has(blockNumber),
    );
    for (let start = 0; start < missing.length; start += BLOCK_HASH_CONCURRENCY) {
      await Promise.all(
        missing
          .slice(start, start + BLOCK_HASH_CONCURRENCY)
          .map((blockNumber) => this.blockHash(blockNumber)),
      );
    }
  }

  async blockHash(blockNumber: number): Promise<string | null> {
    if (blockNumber > this.head) return null;
    if (!this.blockHashes.has(blockNumber)) {
      this.blockHashes.set(blockNumber, await this.adapter.getBlockHash(blockNumber));
    }
    return this.blockHashes.get(blockNumber) ?? null;
  }
}
