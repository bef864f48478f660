import { DataSource } from 'typeorm';

/** Reads of the payout tracker's own, each one indexed statement. */
export class PayoutTrackerReads {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Which of these transaction hashes of a network are the service's own payout transactions
   * (any attempt, any status): the tracker reads the receipts of those only (`UNIQUE (network,
   * tx_hash)`). A transaction is stored before it is ever broadcast, so one mined in a block is
   * found here by any look after that block.
   */
  async ourTransactions(network: string, txHashes: string[]): Promise<Set<string>> {
    if (!txHashes.length) return new Set();
    const rows: Array<{ tx_hash: string }> = await this.dataSource.query(
      `SELECT tx_hash FROM payout_attempts WHERE network = $1 AND tx_hash = ANY($2::text[])`,
      [network, txHashes],
    );
    return new Set(rows.map((row) => row.tx_hash));
  }

  /**
   * Whether the attempt has still never been broadcast, as of now rather than as of the tick's
   * window (a claim sends its batch one transaction after the other, and may have sent this one
   * since the window was read).
   */
  async neverBroadcast(attemptId: string): Promise<boolean> {
    const rows: Array<{ broadcast_count: number }> = await this.dataSource.query(
      `SELECT broadcast_count FROM payout_attempts WHERE id = $1`,
      [attemptId],
    );
    return rows[0]?.broadcast_count === 0;
  }
}
