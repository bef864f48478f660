import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** Where the watcher of one network stands, as read at the start of a tick (no lock held). */
export interface CursorState {
  /** Every block up to this one was scanned. */
  lastScannedBlock: number;
  /** Bumped by every committed tick: the compare-and-set token of the next one. */
  version: number;
  /** Hashes of the recent blocks scanned, by height, as they were when scanned. */
  blocks: Map<number, string>;
}

@Injectable()
export class ChainCursorsRepository {
  /**
   * The network's cursor, created at `startBlock` the first time. A new cursor starts with no
   * remembered blocks: a watcher that lost its cursor knows nothing of the chain it followed.
   */
  async read(manager: EntityManager, network: string, startBlock: number): Promise<CursorState> {
    await manager.query(
      `INSERT INTO chain_cursors (network, last_scanned_block) VALUES ($1, $2)
       ON CONFLICT (network) DO NOTHING`,
      [network, startBlock],
    );
    const [cursor]: Array<{ last_scanned_block: string; version: string }> = await manager.query(
      `SELECT last_scanned_block, version FROM chain_cursors WHERE network = $1`,
      [network],
    );
    const blocks: Array<{ block_number: string; block_hash: string }> = await manager.query(
      `SELECT block_number, block_hash FROM chain_blocks WHERE network = $1`,
      [network],
    );
    return {
      lastScannedBlock: Number(cursor.last_scanned_block),
      version: Number(cursor.version),
      blocks: new Map(blocks.map((block) => [Number(block.block_number), block.block_hash])),
    };
  }

  /**
   * Locks the cursor for this transaction if no tick committed since `version` was read. False
   * when another worker holds it or moved it: what this tick read of the chain may be stale.
   */
  async lockAtVersion(manager: EntityManager, network: string, version: number): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM chain_cursors WHERE network = $1 AND version = $2 FOR UPDATE SKIP LOCKED`,
      [network, version],
    );
    return rows.length > 0;
  }

  /**
   * Moves the cursor (forward, or back to a fork point) and replaces the remembered blocks above
   * `keepUpTo` with `blocks`, forgetting those below `forgetBelow`.
   */
  async save(
    manager: EntityManager,
    network: string,
    change: {
      lastScannedBlock: number;
      keepUpTo: number;
      blocks: Map<number, string>;
      forgetBelow: number;
    },
  ): Promise<void> {
    await manager.query(
      `UPDATE chain_cursors SET last_scanned_block = $2, version = version + 1, updated_at = now()
        WHERE network = $1`,
      [network, change.lastScannedBlock],
    );
    await manager.query(
      `DELETE FROM chain_blocks WHERE network = $1 AND (block_number > $2 OR block_number < $3)`,
      [network, change.keepUpTo, change.forgetBelow],
    );
    const heights = [...change.blocks.keys()].filter((height) => height >= change.forgetBelow);
    if (!heights.length) return;
    await manager.query(
      `INSERT INTO chain_blocks (network, block_number, block_hash)
       SELECT $1, unnest($2::bigint[]), unnest($3::text[])
       ON CONFLICT (network, block_number) DO UPDATE SET block_hash = EXCLUDED.block_hash`,
      [network, heights, heights.map((height) => change.blocks.get(height))],
    );
  }
}
