import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export type SweepDestination = 'hot_wallet' | 'treasury';

export interface NewSweep {
  id: string;
  /** How it is sent, for good: 'batch' (EIP-7702, the default) or 'top_up'. */
  kind?: 'batch' | 'top_up';
  /** A batch's SweepDelegate: its receipt is decoded with this one, whatever settings say later. */
  delegate?: string;
  network: string;
  currency: string;
  tokenContract: string;
  tokenDecimals: number;
  destination: SweepDestination;
  destinationAddress: string;
  sweeperAddress: string;
  items: Array<{
    address: string;
    derivationIndex: number;
    expectedAmount: string;
    authorized: boolean;
  }>;
}

export interface SignedSweepAttempt {
  txHash: string;
  rawTransaction: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gasLimit: bigint;
}

export interface LiveSweep {
  id: string;
  network: string;
  currency: string;
  token_contract: string;
  token_decimals: number;
  destination: SweepDestination;
  destination_address: string;
  sweeper_address: string;
  /** Batches: the delegate called (older rows: null, the attempt's `to` tells). */
  delegate?: string | null;
  nonce: string;
  created_at: Date;
}

const LIVE_COLUMNS = `id, network, currency, token_contract, token_decimals, destination, destination_address,
                      sweeper_address, delegate, nonce, created_at`;

export interface SweepAttemptRow {
  id: string;
  sweep_id: string;
  attempt_number: number;
  tx_hash: string;
  raw_transaction: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  gas_limit: string;
  /**
   * EVM: 'batch' (the sweeper's transaction, and its replacements; a top-up sweep's top-up),
   * 'transfer' (a top-up sweep's deposit address), 'cancel' (treasury:cancel-nonce's zero-value
   * send with the sweep's nonce).
   */
  step: 'batch' | 'transfer' | 'cancel';
  status: 'Signed' | 'Broadcast' | 'Superseded' | 'Mined';
  broadcast_count: number;
  last_broadcast_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The sweeps' write-ahead journal: a sweep, its items, its sweeper nonce and its first signed
 * transaction are written in one transaction before anything is broadcast; replacements are
 * journaled before they are sent. A sweeper nonce belongs to one sweep for good.
 */
@Injectable()
export class SweepJournalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The sweeper's next nonce, its treasury_wallets row locked until the caller's transaction
   * ends (one signer per sweeper lane). `nodeCount` (the node's pending count, read before the
   * transaction) starts a lane that has none stored.
   */
  async lockNextNonce(
    manager: EntityManager,
    network: string,
    sweeper: string,
    nodeCount: number,
  ): Promise<number | null> {
    const rows: Array<{ address: string; next_nonce: string | null }> = await manager.query(
      `SELECT address, next_nonce FROM treasury_wallets
        WHERE network = $1 AND role = 'sweeper' FOR UPDATE`,
      [network],
    );
    if (!rows.length || rows[0].address !== sweeper) return null;
    return rows[0].next_nonce === null ? nodeCount : Number(rows[0].next_nonce);
  }

  /** Journals a new sweep with its nonce and first attempt; the caller's transaction commits. */
  async insert(
    manager: EntityManager,
    sweep: NewSweep,
    nonce: number,
    attempt: SignedSweepAttempt,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, delegate)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'Processing', $10, $11)`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        sweep.tokenContract,
        sweep.tokenDecimals,
        sweep.destination,
        sweep.destinationAddress,
        sweep.sweeperAddress,
        nonce,
        sweep.kind ?? 'batch',
        sweep.delegate ?? null,
      ],
    );
    await manager.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       SELECT $1, $2, $3, i.address, i.derivation_index, i.expected_amount, i.authorized, 'Pending'
         FROM json_to_recordset($4::json)
           AS i(address text, derivation_index int, expected_amount numeric, authorized boolean)`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        JSON.stringify(
          sweep.items.map((item) => ({
            address: item.address,
            derivation_index: item.derivationIndex,
            expected_amount: item.expectedAmount,
            authorized: item.authorized,
          })),
        ),
      ],
    );
    await manager.query(
      `UPDATE treasury_wallets SET next_nonce = $3, updated_at = now()
        WHERE network = $1 AND role = 'sweeper' AND address = $2`,
      [sweep.network, sweep.sweeperAddress, nonce + 1],
    );
    await this.insertAttempt(manager, sweep.id, sweep.network, 1, attempt);
  }

  async insertAttempt(
    manager: EntityManager,
    sweepId: string,
    network: string,
    attemptNumber: number,
    attempt: SignedSweepAttempt,
    step: 'batch' | 'cancel' = 'batch',
  ): Promise<SweepAttemptRow> {
    const [row]: SweepAttemptRow[] = await manager.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, tx_hash, raw_transaction,
                                   max_fee_per_gas, max_priority_fee_per_gas, gas_limit, status,
                                   step)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'Signed', $9) RETURNING *`,
      [
        sweepId,
        attemptNumber,
        network,
        attempt.txHash,
        attempt.rawTransaction,
        attempt.maxFeePerGas.toString(),
        attempt.maxPriorityFeePerGas.toString(),
        attempt.gasLimit.toString(),
        step,
      ],
    );
    return row;
  }

  async attempts(sweepId: string, manager: EntityManager = this.dataSource.manager) {
    const rows: SweepAttemptRow[] = await manager.query(
      `SELECT * FROM sweep_attempts WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );
    return rows;
  }

  async recordBroadcast(attemptId: string, result: string, accepted: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE sweep_attempts
          SET broadcast_count = broadcast_count + 1, last_broadcast_result = $2,
              status = CASE WHEN status = 'Signed' AND $3 THEN 'Broadcast' ELSE status END,
              last_broadcast_at = CASE WHEN $3 THEN COALESCE(last_broadcast_at, now())
                                       ELSE last_broadcast_at END,
              updated_at = now()
        WHERE id = $1`,
      [attemptId, result.slice(0, 500), accepted],
    );
  }

  /**
   * The network's live EIP-7702 batches: only kind 'batch', whatever the settings say now (a
   * top-up or TRON sweep is followed by its own tracker).
   */
  async live(network: string): Promise<LiveSweep[]> {
    return this.dataSource.query(
      `SELECT ${LIVE_COLUMNS}
         FROM sweeps WHERE network = $1 AND status = 'Processing' AND kind = 'batch'
        ORDER BY nonce`,
      [network],
    );
  }

  /** The live sweep, locked; null once another tick finished it. */
  async lockLive(manager: EntityManager, sweepId: string): Promise<LiveSweep | null> {
    const rows: LiveSweep[] = await manager.query(
      `SELECT ${LIVE_COLUMNS}
         FROM sweeps WHERE id = $1 AND status = 'Processing' FOR UPDATE`,
      [sweepId],
    );
    return rows[0] ?? null;
  }

  /** Tokens live sweeps are bringing to the hot wallet (what they expected to move). */
  async inboundToHotWallet(network: string, currency: string): Promise<string> {
    const [row]: Array<{ total: string }> = await this.dataSource.query(
      `SELECT COALESCE(sum(i.expected_amount), 0)::text AS total
         FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = $1 AND s.currency = $2 AND s.status = 'Processing'
          AND s.destination = 'hot_wallet'`,
      [network, currency],
    );
    return row.total;
  }
}
