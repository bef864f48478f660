import { EntityManager } from 'typeorm';

/** What happened to one transfer of a session during a tick (or a chain reset). */
export interface TransactionChange {
  transactionId: string;
  kind: 'detected' | 'confirmed' | 'reverted';
  /** The transfer's status before: null when first seen, `Reverted` when it came back. */
  previousStatus: string | null;
}

/**
 * What deposits need of settlement: bring the sessions whose transfers changed in line with them,
 * inside the caller's transaction (the one that changed the transfers). Deposits decide what was
 * received and when it is confirmed; what that means for a session (Paid or not, the fee, the
 * ledger credit, its events) is checkout's, which implements this port and provides it under
 * DEPOSIT_SETTLEMENT (DepositWatcherModule.settledBy). The arrow runs one way: checkout imports
 * deposits, no file of deposits imports checkout.
 */
export interface DepositSettlement {
  /**
   * Settles every session of the map, with its transfers' changes in the order they happened
   * (none for a session only to be re-checked). Idempotent: settling again changes nothing.
   */
  settleMany(
    manager: EntityManager,
    changesBySession: Map<string, TransactionChange[]>,
  ): Promise<unknown>;
}

export const DEPOSIT_SETTLEMENT = Symbol('DEPOSIT_SETTLEMENT');
