import { DataSource } from 'typeorm';

export interface TransactionFixture {
  id: string;
  sessionId: string;
  txHash: string;
  amount: string;
  status?: 'Pending' | 'Confirmed' | 'Reverted';
  blockNumber?: number;
  logIndex?: number;
  network?: string;
  currency?: string;
}

/** Writes a session transaction directly, for read-side tests that need no chain. */
export async function insertSessionTransaction(
  dataSource: DataSource,
  fixture: TransactionFixture,
): Promise<void> {
  await dataSource.query(
    `INSERT INTO session_transactions (id, session_id, network, currency, token_contract, from_address,
       to_address, tx_hash, log_index, amount, amount_base_units, status, block_number, block_hash)
     VALUES ($1, $2, $3, $4, 'contract', 'from', 'to', $5, $6, $7, 0, $8, $9, $10)`,
    [
      fixture.id,
      fixture.sessionId,
      fixture.network ?? 'TRON',
      fixture.currency ?? 'USDT',
      fixture.txHash,
      fixture.logIndex ?? 0,
      fixture.amount,
      fixture.status ?? 'Confirmed',
      fixture.blockNumber ?? 1,
      `hash-${fixture.blockNumber ?? 1}`,
    ],
  );
}
