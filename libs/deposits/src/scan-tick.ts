import { EntityManager } from 'typeorm';
import { NetworkName } from '@app/chains';
import { TransactionChange } from './deposit-settlement.port';
import { OpenTransfer } from './detected-transfers.repository';
import { ScanPlan } from './scan-plan';

/** What one tick has learned so far. */
export class ScanTick {
  readonly touchedSessions = new Set<string>();
  readonly reverted = new Set<string>();
  /** Per session, its transfers' changes in the order they happened (for its events). */
  private readonly changes = new Map<string, TransactionChange[]>();
  private readonly foundBlocks: Set<string>;

  constructor(
    readonly manager: EntityManager,
    readonly network: NetworkName,
    readonly plan: ScanPlan,
  ) {
    this.foundBlocks = new Set(
      plan.found.map((found) => `${found.blockNumber}:${found.blockHash}`),
    );
  }

  /** The chain now has another block at the transfer's height. */
  replaced(transfer: { block_number: string; block_hash: string }): boolean {
    const hash = this.plan.canonical.get(Number(transfer.block_number));
    return hash !== undefined && hash !== transfer.block_hash;
  }

  /** The transfer's block is known to be the chain's (read or vouched for in this tick). */
  canonical(transfer: Pick<OpenTransfer, 'block_number' | 'block_hash'>): boolean {
    const blockNumber = Number(transfer.block_number);
    const hash = this.plan.canonical.get(blockNumber);
    if (hash !== undefined) return hash === transfer.block_hash;
    // Found by this tick's own scan below the remembered window (catching up): the logs carried it.
    return this.foundBlocks.has(`${blockNumber}:${transfer.block_hash}`);
  }

  note(sessionId: string, change: TransactionChange): void {
    this.touchedSessions.add(sessionId);
    const changes = this.changes.get(sessionId) ?? [];
    changes.push(change);
    this.changes.set(sessionId, changes);
  }

  /** Every touched session with its transfers' changes (none for a session only re-checked). */
  changesBySession(): Map<string, TransactionChange[]> {
    return new Map(
      [...this.touchedSessions].map((sessionId) => [sessionId, this.changes.get(sessionId) ?? []]),
    );
  }
}
