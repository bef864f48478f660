import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkName } from '@app/chains';
import { TransactionChange } from '../settlement/session-events';
import { SessionSettlementService } from '../settlement/session-settlement.service';
import { UnmatchedTransferBooks } from '../unmatched-transfers/unmatched-transfer-books';

export interface ChainResetReport {
  network: NetworkName;
  /** Transfers of the forgotten chain taken back (Pending or Confirmed before). */
  revertedTransfers: number;
  /** Sessions settled again because of them. */
  settledSessions: number;
  revertedUnmatched: number;
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
    private readonly settlement: SessionSettlementService,
    private readonly unmatchedBooks: UnmatchedTransferBooks,
  ) {}

  async forget(network: NetworkName): Promise<ChainResetReport> {
    return this.dataSource.transaction(async (manager) => {
      // A tick of a running worker holding the cursor finishes first; after the delete its
      // compare-and-set fails and the next tick starts a new cursor.
      await manager.query(`SELECT 1 FROM chain_cursors WHERE network = $1 FOR UPDATE`, [network]);
      const reverted: Array<{ id: string; session_id: string; status: string }> =
        await manager.query(
          `SELECT id, session_id, status FROM session_transactions
          WHERE network = $1 AND status IN ('Pending', 'Confirmed') ORDER BY id FOR UPDATE`,
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
      const unmatched: Array<{ id: string }> = await manager.query(
        `SELECT id FROM unmatched_transfers WHERE network = $1 AND status <> 'reverted'`,
        [network],
      );
      await manager.query(
        `UPDATE unmatched_transfers SET status = 'reverted', reverted_at = now(), updated_at = now()
          WHERE id = ANY($1::text[])`,
        [unmatched.map((row) => row.id)],
      );
      await this.unmatchedBooks.reverseReverted(manager, network);
      await manager.query(`DELETE FROM chain_cursors WHERE network = $1`, [network]);
      return {
        network,
        revertedTransfers: reverted.length,
        settledSessions: changes.size,
        revertedUnmatched: unmatched.length,
      };
    });
  }
}
