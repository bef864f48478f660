import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SignedTronTransaction } from '@app/chains/sweeps/tron-sweep-transport';
import { SweepDestination } from './sweep-journal.repository';

export type TronStep = 'activate' | 'delegate' | 'transfer' | 'undelegate';

/** A TRON sweep: one deposit address, its token, where it goes (sweeps + its one sweep_items row). */
export interface TronSweepRow {
  id: string;
  network: string;
  currency: string;
  token_contract: string;
  token_decimals: number;
  destination: SweepDestination;
  destination_address: string;
  /** The staking account that activates, lends and takes back. */
  sweeper_address: string;
  address: string;
  derivation_index: number;
  item_status: 'Pending' | 'Swept' | 'Failed' | 'Skipped';
  created_at: Date;
}

/** One signed step transaction, journaled before its first broadcast. */
export interface TronStepRow {
  id: string;
  sweep_id: string;
  attempt_number: number;
  step: TronStep;
  tx_hash: string;
  raw_transaction: string;
  expires_at: Date;
  /** Mined: solidified and booked. Expired: proven never minable; its step was signed again. */
  status: 'Signed' | 'Broadcast' | 'Expired' | 'Mined';
  broadcast_count: number;
  last_broadcast_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewTronSweep {
  id: string;
  network: string;
  currency: string;
  tokenContract: string;
  tokenDecimals: number;
  destination: SweepDestination;
  destinationAddress: string;
  stakingAddress: string;
  address: string;
  derivationIndex: number;
  expectedAmount: string;
  /** The sweep starts by activating the address (sweep_items.authorized records it). */
  activates: boolean;
}

const SWEEP_COLUMNS = `s.id, s.network, s.currency, s.token_contract, s.token_decimals, s.destination,
  s.destination_address, s.sweeper_address, s.created_at,
  i.address, i.derivation_index, i.status AS item_status`;

/**
 * The TRON sweeps' write-ahead journal. A sweep has no nonce: each step is its own transaction,
 * signed (with a 60 s life) and stored before it is first sent; a step is signed again only
 * once its stored transaction is proven expired. Steps are numbered attempts of the sweep.
 */
@Injectable()
export class TronSweepJournalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The sweep, its item and its first step, in the caller's transaction. */
  async insert(
    manager: EntityManager,
    sweep: NewTronSweep,
    step: TronStep,
    signed: SignedTronTransaction,
  ): Promise<TronStepRow> {
    await manager.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, 'Processing', 'tron')`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        sweep.tokenContract,
        sweep.tokenDecimals,
        sweep.destination,
        sweep.destinationAddress,
        sweep.stakingAddress,
      ],
    );
    await manager.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'Pending')`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        sweep.address,
        sweep.derivationIndex,
        sweep.expectedAmount,
        sweep.activates,
      ],
    );
    return this.insertStep(manager, sweep.id, sweep.network, 1, step, signed);
  }

  async insertStep(
    manager: EntityManager,
    sweepId: string,
    network: string,
    attemptNumber: number,
    step: TronStep,
    signed: SignedTronTransaction,
  ): Promise<TronStepRow> {
    const [row]: TronStepRow[] = await manager.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, expires_at, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'Signed') RETURNING *`,
      [
        sweepId,
        attemptNumber,
        network,
        step,
        signed.txHash,
        signed.rawTransaction,
        signed.expiresAt,
      ],
    );
    return row;
  }

  /** The network's live TRON sweeps (kind 'tron'). */
  async live(network: string): Promise<TronSweepRow[]> {
    return this.dataSource.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = $1 AND s.status = 'Processing' AND s.kind = 'tron'
        ORDER BY s.created_at`,
      [network],
    );
  }

  /** The live sweep, locked until the caller's transaction ends; null once it ended. */
  async lockLive(manager: EntityManager, sweepId: string): Promise<TronSweepRow | null> {
    const rows: TronSweepRow[] = await manager.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.id = $1 AND s.status = 'Processing' AND s.kind = 'tron' FOR UPDATE OF s`,
      [sweepId],
    );
    return rows[0] ?? null;
  }

  async steps(sweepId: string, manager: EntityManager = this.dataSource.manager) {
    const rows: TronStepRow[] = await manager.query(
      `SELECT * FROM sweep_attempts WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );
    return rows;
  }

  async setStatus(
    manager: EntityManager,
    attemptId: string,
    status: 'Expired' | 'Mined',
  ): Promise<void> {
    await manager.query(`UPDATE sweep_attempts SET status = $2, updated_at = now() WHERE id = $1`, [
      attemptId,
      status,
    ]);
  }

  /** Addresses in a live sweep of the network (any token): never two sweeps lending to one. */
  async liveAddresses(network: string): Promise<Set<string>> {
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT i.address FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = $1 AND s.status = 'Processing'`,
      [network],
    );
    return new Set(rows.map((row) => row.address));
  }
}
