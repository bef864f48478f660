import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import { NetworkName } from '@app/chains';
import { LedgerService } from '@app/ledger';
import { FORGOTTEN_SUFFIX, UNMATCHED_NATIVE_KIND } from './stranger-coin';

export interface SweepChainResetReport {
  /** Live sweeps of the forgotten chain, ended Failed: none of their transactions can be mined. */
  endedSweeps: number;
  /** The sweeper's stored next nonce was cleared: the next sweep starts from the node's count. */
  sweeperNonceReset: boolean;
  /** Third parties' native coin booked on the forgotten chain (`unmatched_native`), reversed. */
  reversedStrangerCoin: number;
  /** Fees of the network not final yet, marked final: their chain can no longer be read. */
  finalizedFees: number;
}

/**
 * `chains:forget`'s part for sweeps: the network's chain no longer exists (a devnet restarted, a
 * testnet reset; never a mainnet). What the sweeps remember of it would stall the new chain: a
 * stored sweeper nonce past the new chain's count leaves a gap no transaction fills, live sweeps
 * wait for receipts that never come, and the planner's blocks belong to the old chain. So, as the
 * payouts' nonces are when their worker starts: the sweeper's lane starts again from the node's
 * count, live sweeps end Failed (their stored bytes are never sent again), every sweep of the
 * network is marked as of a forgotten chain (its nonce may be used again), and the planner's rows
 * of the network are dropped (the new chain's confirmed transfers mark their addresses again).
 */
@Injectable()
export class SweepChainReset {
  private readonly logger = new Logger(SweepChainReset.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
  ) {}

  async forget(network: NetworkName): Promise<SweepChainResetReport> {
    return this.dataSource.transaction(async (manager) => {
      // A sweep pass in flight (TreasurySweeps.run's lock) finishes first: one that had read the
      // live sweeps before this commits would send their bytes again to the new chain.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
        `treasury.sweep:${network}`,
      ]);
      // A signer holds this row while it journals a sweep: it finishes first, and its sweep is
      // ended below with the others.
      const lane: Array<{ next_nonce: string | null }> = await manager.query(
        `SELECT next_nonce FROM treasury_wallets WHERE network = $1 AND role = 'sweeper' FOR UPDATE`,
        [network],
      );
      const ended: Array<{ id: string }> = await manager.query(
        `SELECT id FROM sweeps WHERE network = $1 AND status = 'Processing' ORDER BY id FOR UPDATE`,
        [network],
      );
      const ids = ended.map((row) => row.id);
      await manager.query(
        `UPDATE sweep_items SET status = 'Failed' WHERE sweep_id = ANY($1) AND status = 'Pending'`,
        [ids],
      );
      await manager.query(
        `UPDATE sweep_attempts SET status = 'Superseded', updated_at = now()
          WHERE sweep_id = ANY($1) AND status IN ('Signed', 'Broadcast')`,
        [ids],
      );
      await manager.query(
        `UPDATE sweeps SET status = 'Failed', completed_at = now(), updated_at = now(),
                error_reason = 'Its chain was forgotten (chains:forget): nothing of it can be mined.'
          WHERE id = ANY($1)`,
        [ids],
      );
      await manager.query(
        `UPDATE sweeps SET chain_forgotten_at = now()
          WHERE network = $1 AND chain_forgotten_at IS NULL`,
        [network],
      );
      await manager.query(
        `UPDATE treasury_wallets SET next_nonce = NULL, updated_at = now()
          WHERE network = $1 AND role = 'sweeper'`,
        [network],
      );
      await manager.query(`DELETE FROM sweep_addresses WHERE network = $1`, [network]);
      // Fees booked on the gone chain (payouts' and sweeps') can never become final: their
      // receipts are missing on the new chain, or name other blocks there. Left not final they
      // would be read for ever and count as overdue (docs/treasury.md, "Fees become final").
      const [, finalizedFees]: [unknown, number] = await manager.query(
        `UPDATE network_fee_receipts SET final_at = now()
          WHERE network = $1 AND final_at IS NULL`,
        [network],
      );
      const report = {
        endedSweeps: ids.length,
        sweeperNonceReset: lane.length > 0 && lane[0].next_nonce !== null,
        reversedStrangerCoin: await this.reverseStrangerCoin(manager, network),
        finalizedFees,
      };
      this.logger.warn({ network, ...report }, 'Sweeps of a forgotten chain ended');
      return report;
    });
  }

  /**
   * The native coin of third parties booked on the forgotten chain (`unmatched_native`) is gone
   * with it, and owed to no one: each entry not reversed yet gets its reversal
   * (`<reference>:forgotten`, every line negated). The per-address books (stranger-coin.ts)
   * then count nothing of the old chain, and the new chain's coin is booked from zero.
   */
  private async reverseStrangerCoin(manager: EntityManager, network: NetworkName): Promise<number> {
    const lines: Array<{ reference: string; account: string; currency: string; amount: string }> =
      await manager.query(
        `SELECT e.reference, l.account, l.currency, l.amount::text
           FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
          WHERE e.reference LIKE 'unmatched_native:' || $1 || ':%'
            AND e.reference NOT LIKE '%' || $2
            AND NOT EXISTS (SELECT 1 FROM ledger_entries r WHERE r.reference = e.reference || $2)
          ORDER BY e.reference, l.account`,
        [network, FORGOTTEN_SUFFIX],
      );
    const entries = new Map<string, typeof lines>();
    for (const line of lines)
      entries.set(line.reference, [...(entries.get(line.reference) ?? []), line]);
    await this.ledger.postMany(
      manager,
      [...entries].map(([reference, of]) => ({
        reference: `${reference}${FORGOTTEN_SUFFIX}`,
        kind: UNMATCHED_NATIVE_KIND,
        lines: of.map((line) => ({
          account: line.account,
          currency: line.currency,
          network,
          amount: new Decimal(line.amount).negated(),
        })),
      })),
    );
    return entries.size;
  }
}
