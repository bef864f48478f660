import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerAccounts } from '@app/ledger';
import { SweepAttemptRow } from './sweep-journal.repository';

/**
 * A gas top-up sweep's two transactions, both journaled with the sweep before the first is sent:
 * the sweeper's top-up (step 'batch': the sweeper's own transaction, on its nonce lane, the
 * sweep's nonce; a replacement is another 'batch' attempt with that nonce) and the deposit
 * address's token transfer (step 'transfer', its own nonce).
 */
export interface TopUpAttemptRow extends SweepAttemptRow {
  /** 'batch': the top-up and its replacements; 'cancel': the operator's, same nonce. */
  step: 'batch' | 'transfer' | 'cancel';
}

export interface TransferOnlySweep {
  id: string;
  network: string;
  currency: string;
  tokenContract: string;
  tokenDecimals: number;
  destination: 'hot_wallet' | 'treasury';
  destinationAddress: string;
  sweeperAddress: string;
  address: string;
  derivationIndex: number;
  expectedAmount: string;
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
  /** Always null: a top-up sweep calls no SweepDelegate. */
  delegate: string | null;
  /** Null when the address held enough of our own coin: the sweep is its transfer alone. */
  nonce: string | null;
  address: string;
  /** The deposit address's key: its transfer is signed again when its top-up is replaced. */
  derivation_index: number;
  created_at: Date;
}

const SWEEP_COLUMNS = `s.id, s.network, s.currency, s.token_contract, s.token_decimals, s.destination,
  s.destination_address, s.sweeper_address, s.delegate, s.nonce, s.created_at, i.address,
  i.derivation_index`;

@Injectable()
export class EvmTopUpJournalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The deposit address's transfer: attempt 2, after the top-up (attempt 1) the sweep was
   * journaled with; attempt 1 of a transfer-only sweep (the address holds our gas already).
   */
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
    attemptNumber = 2,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, max_fee_per_gas, max_priority_fee_per_gas,
                                   gas_limit, status)
       VALUES ($1, $8, $2, 'transfer', $3, $4, $5, $6, $7, 'Signed')`,
      [
        sweepId,
        network,
        signed.txHash,
        signed.rawTransaction,
        signed.maxFeePerGas.toString(),
        signed.maxPriorityFeePerGas.toString(),
        signed.gasLimit.toString(),
        attemptNumber,
      ],
    );
  }

  /**
   * A sweep whose address holds enough of our own coin for the transfer's gas: no top-up, no
   * sweeper nonce (NULL); its item, then its transfer is journaled by the caller.
   */
  async insertTransferOnly(manager: EntityManager, sweep: TransferOnlySweep): Promise<void> {
    await manager.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, 'Processing', 'top_up')`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        sweep.tokenContract,
        sweep.tokenDecimals,
        sweep.destination,
        sweep.destinationAddress,
        sweep.sweeperAddress,
      ],
    );
    await manager.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, $2, $3, $4, $5, $6, false, 'Pending')`,
      [
        sweep.id,
        sweep.network,
        sweep.currency,
        sweep.address,
        sweep.derivationIndex,
        sweep.expectedAmount,
      ],
    );
  }

  /**
   * The native coin (base units) the books hold on this deposit address: what our mined top-ups
   * to it put into `deposits:N:COIN`, less the fees its own transfers paid out of it (with their
   * corrections once final, `network_fee_adjustment` and an operator's `network_fee_operator`:
   * the fee the chain burnt). Coin anyone else sent it is not ours to spend and is not counted.
   */
  async ownCoin(
    network: string,
    address: string,
    coin: { symbol: string; decimals: number },
  ): Promise<bigint> {
    const [{ ours }]: Array<{ ours: string }> = await this.dataSource.query(
      `SELECT trunc(COALESCE(sum(l.amount), 0) * power(10::numeric, $4))::text AS ours
         FROM sweeps s
         JOIN sweep_items i ON i.sweep_id = s.id
         JOIN sweep_attempts a ON a.sweep_id = s.id
         JOIN ledger_entries e
           ON e.reference IN ('sweep_top_up:' || s.network || ':' || a.tx_hash,
                              'network_fee:' || s.network || ':' || a.tx_hash,
                              'network_fee_adjustment:' || s.network || ':' || a.tx_hash,
                              'network_fee_operator:' || s.network || ':' || a.tx_hash)
         JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $3
        WHERE s.network = $1 AND s.kind = 'top_up' AND lower(i.address) = lower($2)`,
      [network, address, LedgerAccounts.deposits(network, coin.symbol), coin.decimals],
    );
    return BigInt(ours);
  }

  /** Marks a sweep just journaled (in the caller's transaction) as a top-up, for good. */
  async markTopUp(manager: EntityManager, sweepId: string): Promise<void> {
    await manager.query(`UPDATE sweeps SET kind = 'top_up' WHERE id = $1`, [sweepId]);
  }

  /**
   * The network's live top-up sweeps, whatever the settings say now: a 7702 batch (kind 'batch')
   * is its own tracker's, even while gasTopUp is on.
   */
  async live(network: string): Promise<TopUpSweepRow[]> {
    return this.dataSource.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = $1 AND s.status = 'Processing' AND s.kind = 'top_up'
        ORDER BY s.nonce NULLS FIRST, s.created_at`,
      [network],
    );
  }

  async lockLive(manager: EntityManager, sweepId: string): Promise<TopUpSweepRow | null> {
    const rows: TopUpSweepRow[] = await manager.query(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.id = $1 AND s.status = 'Processing' AND s.kind = 'top_up' FOR UPDATE OF s`,
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
