import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

@Injectable()
export class ChainCursorsRepository {
  /**
   * Locks the network's cursor for this transaction, creating it at `startBlock` the first time.
   * Returns null when another worker holds it: that worker is scanning, this one stays out.
   */
  async lock(manager: EntityManager, network: string, startBlock: number): Promise<number | null> {
    await manager.query(
      `INSERT INTO chain_cursors (network, last_scanned_block) VALUES ($1, $2)
       ON CONFLICT (network) DO NOTHING`,
      [network, startBlock],
    );
    const rows: Array<{ last_scanned_block: string }> = await manager.query(
      `SELECT last_scanned_block FROM chain_cursors WHERE network = $1 FOR UPDATE SKIP LOCKED`,
      [network],
    );
    return rows.length ? Number(rows[0].last_scanned_block) : null;
  }

  async save(manager: EntityManager, network: string, lastScannedBlock: number): Promise<void> {
    await manager.query(
      `UPDATE chain_cursors SET last_scanned_block = $2, updated_at = now() WHERE network = $1`,
      [network, lastScannedBlock],
    );
  }
}
