import { DataSource } from 'typeorm';

/**
 * Runs `send` (a broadcast of a sweep's stored bytes) only while the sweep is live, its row held
 * FOR SHARE until the node answered. chains:forget ends live sweeps under FOR UPDATE: it ends
 * this one either before (nothing is sent) or after the send, never between the check and it.
 * Bytes of an ended sweep sent to a chain started again could be mined there and never booked.
 */
export async function sendWhileLive<T>(
  dataSource: DataSource,
  sweepId: string,
  send: () => Promise<T>,
): Promise<T | null> {
  return dataSource.transaction(async (manager) => {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM sweeps
        WHERE id = $1 AND status = 'Processing' AND chain_forgotten_at IS NULL FOR SHARE`,
      [sweepId],
    );
    return rows.length ? send() : null;
  });
}

export const NOT_LIVE = 'not sent: the sweep is no longer live';
