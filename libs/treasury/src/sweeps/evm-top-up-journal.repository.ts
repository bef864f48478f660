import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SweepAttemptRow } from './sweep-journal.repository';

/**
 * A gas top-up sweep's two transactions, both journaled with the sweep before the first is sent:
 * the sweeper's top-up (step 'batch': the sweeper's own transaction, on its nonce lane, the
 * sweep's nonce) and the deposit address's token transfer (step 'transfer', its own nonce).
 */
export interface TopUpAttemptRow extends Omit<SweepAttemptRow, 'status'> {
  step: 'batch' | 'transfer';
  status: 'Signed' | 'Broadcast' | 'Superseded' | 'Mined';
}

export interface TopUpSweepRow {
  id: string;
  network: string;
  currency: string;
  token_contract: string;
  token_decimals: number;
  destination: 'hot_wallet' | 'treasury';
  destination_address: string;
  sweeper_address: string;
  nonce: string;
  address: string;
  created_at: Date;
}

const SWEEP_COLUMNS = `s.id, s.network, s.currency, s.token_contract, s.token_decimals, s.destination,
  s.destination_address, s.sweeper_address, s.nonce, s.created_at, i.address`;

@Injectable()
export class EvmTopUpJournalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The deposit address's transfer, after the top-up (attempt 1) the sweep was journaled with. */
  async insertTransfer(
    manager: EntityManager,
    sweepId: string,
    network: string,
    signed: {
      txHash: string;
      rawTransaction: string;
      maxFeePerGas: bigint;
      maxPriorityFeePerGas: bigint;
      gasLimit: bigint;
    },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, max_fee_per_gas, max_priority_fee_per_gas,
                                   gas_limit, status)
       VALUES ($1, 2, $2, 'transfer', $3, $4, $5, $6, $7, 'Signed')`,
      [
        sweepId,
        network,
        signed.txHash,
        signed.rawTransaction,
        signed.maxFeePerGas.toString(),
        signed.maxPriorityFeePerGas.toString(),
        signed.gasLimit.toString(),
      ],
    );
  }

  async live(network: string): Promise<TopUpSweepRow[]> {
    return this.dataSource.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = $1 AND s.status = 'Processing' ORDER BY s.nonce`,
      [network],
    );
  }

  async lockLive(manager: EntityManager, sweepId: string): Promise<TopUpSweepRow | null> {
    const rows: TopUpSweepRow[] = await manager.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.id = $1 AND s.status = 'Processing' FOR UPDATE OF s`,
      [sweepId],
    );
    return rows[0] ?? null;
  }

  async attempts(sweepId: string, manager: EntityManager = this.dataSource.manager) {
    const rows: TopUpAttemptRow[] = await manager.query(
      `SELECT * FROM sweep_attempts WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );
    return rows;
  }

  async markMined(manager: EntityManager, attemptId: string): Promise<void> {
    await manager.query(
      `UPDATE sweep_attempts SET status = 'Mined', updated_at = now() WHERE id = $1`,
      [attemptId],
    );
  }
}
