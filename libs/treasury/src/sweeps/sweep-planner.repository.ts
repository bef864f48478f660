import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

// Settlement transactions are short (the worker's, with no user input in them); a transfer they
// confirm carries their start time, and may commit up to this long after it.
const INGEST_OVERLAP = '10 minutes';

export interface PendingDepositAddress {
  address: string;
  derivationIndex: number;
  pendingSince: Date;
  pendingBlock: number;
}

/**
 * Which deposit addresses may hold unswept tokens (sweep_addresses). Fed from confirmed session
 * transactions and unmatched transfers; cleared only by a positive proof, a zero balance read at
 * a block at or past the newest transfer known.
 */
@Injectable()
export class SweepPlannerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Marks the addresses of transfers confirmed since the last call (with an overlap: a transfer
   * is marked at most once per block it adds, so reading one twice changes nothing).
   */
  async ingest(network: string, currency: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [cursor] = (await manager.query(
        `INSERT INTO sweep_cursors (network, currency, ingested_until)
         VALUES ($1, $2, '-infinity') ON CONFLICT (network, currency) DO UPDATE
           SET ingested_until = sweep_cursors.ingested_until
         RETURNING ingested_until, now() AS now`,
        [network, currency],
      )) as Array<{ ingested_until: Date; now: Date }>;
      const rows = (await manager.query(
        `WITH activity AS (
           SELECT s.pay_address AS address, t.confirmed_at AS at, t.block_number
             FROM session_transactions t JOIN checkout_sessions s ON s.id = t.session_id
            WHERE t.network = $1 AND t.status = 'Confirmed' AND s.currency = $2
              AND t.confirmed_at > $3::timestamptz - $4::interval
           UNION ALL
           -- updated_at, not created_at: a transfer a reorg reverted and a later block revived
           -- keeps its created_at, and must be marked again.
           SELECT p.address, u.updated_at, u.block_number
             FROM unmatched_transfers u JOIN pay_addresses p ON p.address = u.to_address
            WHERE u.network = $1 AND u.currency = $2 AND u.status = 'detected'
              AND u.updated_at > $3::timestamptz - $4::interval)
         INSERT INTO sweep_addresses AS w (network, currency, address, pending_since, pending_block)
         SELECT $1, $2, address, min(at), max(block_number) FROM activity GROUP BY address
         ON CONFLICT (network, currency, address) DO UPDATE
           SET pending_since = LEAST(w.pending_since, EXCLUDED.pending_since),
               pending_block = GREATEST(w.pending_block, EXCLUDED.pending_block),
               updated_at = now()
         WHERE EXCLUDED.pending_block > w.checked_through_block
         RETURNING 1`,
        [network, currency, cursor.ingested_until, INGEST_OVERLAP],
      )) as unknown[];
      await manager.query(
        `UPDATE sweep_cursors SET ingested_until = $3 WHERE network = $1 AND currency = $2`,
        [network, currency, cursor.now],
      );
      return rows.length;
    });
  }

  /** Pending addresses not in a live sweep, oldest first, with their derivation index. */
  async pending(
    network: string,
    currency: string,
    family: string,
    fingerprint: string,
    limit: number,
  ): Promise<PendingDepositAddress[]> {
    const rows: Array<{
      address: string;
      derivation_index: number;
      pending_since: Date;
      pending_block: string;
    }> = await this.dataSource.query(
      `SELECT w.address, p.derivation_index, w.pending_since, w.pending_block
         FROM sweep_addresses w
         JOIN pay_addresses p ON p.address = w.address
        WHERE w.network = $1 AND w.currency = $2 AND w.pending_since IS NOT NULL
          AND w.frozen_at IS NULL AND p.chain_family = $3 AND p.key_fingerprint = $4
          AND NOT EXISTS (SELECT 1 FROM sweep_items i
                           WHERE i.network = $1 AND i.currency = $2
                             AND lower(i.address) = lower(w.address) AND i.status = 'Pending')
        ORDER BY w.pending_since LIMIT $5`,
      [network, currency, family, fingerprint, limit],
    );
    return rows.map((row) => ({
      address: row.address,
      derivationIndex: row.derivation_index,
      pendingSince: new Date(row.pending_since),
      pendingBlock: Number(row.pending_block),
    }));
  }

  /** Read empty at `block`: cleared, unless a transfer past that block arrived meanwhile. */
  async markEmpty(network: string, currency: string, addresses: string[], block: number) {
    if (!addresses.length) return;
    await this.dataSource.query(
      `UPDATE sweep_addresses
          SET pending_since = CASE WHEN pending_block <= $4 THEN NULL ELSE pending_since END,
              checked_through_block = GREATEST(checked_through_block, $4), updated_at = now()
        WHERE network = $1 AND currency = $2 AND address = ANY($3)`,
      [network, currency, addresses, block],
    );
  }

  /**
   * treasury:unfreeze: the operator's word that an address may be swept again (a blacklist
   * lifted, a wrong freeze). Its failures start from zero; true when it was frozen.
   */
  async unfreeze(network: string, currency: string, address: string): Promise<boolean> {
    // As a SELECT: TypeORM answers an UPDATE with [rows, count], not the rows.
    const [{ unfrozen }]: Array<{ unfrozen: number }> = await this.dataSource.query(
      `WITH done AS (
         UPDATE sweep_addresses SET frozen_at = NULL, failures = 0, updated_at = now()
          WHERE network = $1 AND currency = $2 AND frozen_at IS NOT NULL
            AND (address = $3 OR (address LIKE '0x%' AND lower(address) = lower($3)))
         RETURNING 1)
       SELECT count(*)::int AS unfrozen FROM done`,
      [network, currency, address],
    );
    return unfrozen > 0;
  }

  /** Addresses a token refused to move from: reported, not retried until treasury:unfreeze. */
  async frozen(
    network?: string,
  ): Promise<Array<{ network: string; currency: string; address: string; frozen_at: Date }>> {
    return this.dataSource.query(
      `SELECT network, currency, address, frozen_at FROM sweep_addresses
        WHERE frozen_at IS NOT NULL AND ($1::text IS NULL OR network = $1) ORDER BY frozen_at`,
      [network ?? null],
    );
  }
}
