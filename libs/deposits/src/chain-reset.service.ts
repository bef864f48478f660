import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkName } from '@app/chains';
import { realTransfersOnly } from '@app/common';
import {
  DEPOSIT_SETTLEMENT,
  DepositSettlement,
  TransactionChange,
} from './deposit-settlement.port';
import { UnmatchedTransferBooks } from './unmatched-transfers/unmatched-transfer-books';

export interface ChainResetReport {
  network: NetworkName;
  /** Transfers of the forgotten chain taken back (Pending or Confirmed before). */
  revertedTransfers: number;
  /** Sessions settled again because of them. */
  settledSessions: number;
  revertedUnmatched: number;
  /**
   * Unmatched transfers left booked because their refund is `Completed`: the transfer and the
   * refund that sent it back were both on the forgotten chain, so neither is undone (reverting
   * the transfer alone would book the refund as a reorg loss that never happened).
   */
  keptRefundedUnmatched: number;
  /** Proofs of which transaction used a wallet's nonce, all drawn from the forgotten chain. */
  forgottenNonceProofs: number;
}

/**
 * Forgets the chain a network's watcher followed, for when that chain no longer exists: a devnet
 * restarted (`npm run demo` starts a new one each time) or a testnet reset. The watcher rightly
 * waits while a node does not have the blocks it remembers (a lagging node looks the same), so it
 * needs to be told. Every transfer still counted on that network is taken back (its chain is gone),
 * the sessions are settled again, and the cursor starts afresh on the next tick. Never for a
 * mainnet: its chain does not go away.
 */
@Injectable()
export class ChainResetService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(DEPOSIT_SETTLEMENT) private readonly settlement: DepositSettlement,
    private readonly unmatchedBooks: UnmatchedTransferBooks,
  ) {}

  async forget(network: NetworkName): Promise<ChainResetReport> {
    return this.dataSource.transaction(async (manager) => {
      // A tick of a running worker holding the cursor finishes first; after the delete its
      // compare-and-set fails and the next tick starts a new cursor.
      await manager.query(`SELECT 1 FROM chain_cursors WHERE network = $1 FOR UPDATE`, [network]);
      const reverted: Array<{ id: string; session_id: string; status: string }> =
        await manager.query(
          // Simulated transfers (sandbox test helpers) were on no chain: none is forgotten.
          `SELECT id, session_id, status FROM session_transactions
          WHERE network = $1 AND status IN ('Pending', 'Confirmed') AND ${realTransfersOnly()}
          ORDER BY id FOR UPDATE`,
          [network],
        );
      await manager.query(
        `UPDATE session_transactions SET status = 'Reverted', reverted_at = now(), updated_at = now()
          WHERE id = ANY($1::text[])`,
        [reverted.map((row) => row.id)],
      );
      const changes = new Map<string, TransactionChange[]>();
      for (const row of reverted) {
        const change: TransactionChange = {
          transactionId: row.id,
          kind: 'reverted',
          previousStatus: row.status,
        };
        changes.set(row.session_id, [...(changes.get(row.session_id) ?? []), change]);
      }
      await this.settlement.settleMany(manager, changes);
      // A transfer refunded in full (its refund Completed) stays as it is, with its refund: both
      // were on the gone chain. One whose refund is signed but not completed is reverted as a
      // reorg reverts it (its refund booked as a loss to review, undone if the refund fails).
      const unmatched: Array<{ id: string; refunded: boolean }> = await manager.query(
        `SELECT u.id, EXISTS (SELECT 1 FROM refunds r
                               WHERE r.unmatched_transfer_id = u.id AND r.status = 'Completed')
                       AS refunded
           FROM unmatched_transfers u WHERE u.network = $1 AND u.status <> 'reverted'
            AND u.chain_forgotten_at IS NULL
          ORDER BY u.id FOR UPDATE OF u`,
        [network],
      );
      const forgotten = unmatched.filter((row) => !row.refunded);
      // Marked, so that the watcher never takes the new chain's block at its height for a reorg
      // of it (which would revert it and book its refund as a loss after all). updated_at stays:
      // the sweep planner takes a transfer updated since its last pass for a new deposit.
      await manager.query(
        `UPDATE unmatched_transfers SET chain_forgotten_at = now()
          WHERE id = ANY($1::text[]) AND chain_forgotten_at IS NULL`,
        [unmatched.filter((row) => row.refunded).map((row) => row.id)],
      );
      await manager.query(
        `UPDATE unmatched_transfers SET status = 'reverted', reverted_at = now(), updated_at = now()
          WHERE id = ANY($1::text[])`,
        [forgotten.map((row) => row.id)],
      );
      await this.unmatchedBooks.reverseReverted(manager, network);
      await manager.query(`DELETE FROM chain_cursors WHERE network = $1`, [network]);
      // The proofs name blocks and transactions of the gone chain. None would be used (its block
      // hash is not the new chain's), but one stays until a confirmed proof of the same nonce
      // replaces it, and an operator reading nonce_proofs would take it for the new chain's.
      const [, forgottenNonceProofs]: [unknown, number] = await manager.query(
        `DELETE FROM nonce_proofs WHERE network = $1`,
        [network],
      );
      return {
        network,
        revertedTransfers: reverted.length,
        settledSessions: changes.size,
        revertedUnmatched: forgotten.length,
        keptRefundedUnmatched: unmatched.length - forgotten.length,
        forgottenNonceProofs,
      };
    });
  }
}
