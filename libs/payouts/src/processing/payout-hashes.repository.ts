import { DataSource } from 'typeorm';

/**
 * Which transaction hashes of a network are the service's own payout transactions (any attempt,
 * any status): the tracker reads the receipts of those only. One indexed probe a tick
 * (`UNIQUE (network, tx_hash)`). A transaction is stored before it is ever broadcast, so one
 * mined in a block is found here by any look after that block.
 */
export class PayoutHashesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async ours(network: string, txHashes: string[]): Promise<Set<string>> {
    if (!txHashes.length) return new Set();
    const rows: Array<{ tx_hash: string }> = await this.dataSource.query(
      `SELECT tx_hash FROM payout_attempts WHERE network = $1 AND tx_hash = ANY($2::text[])`,
      [network, txHashes],
    );
    return new Set(rows.map((row) => row.tx_hash));
  }
}
