import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';

export interface DetectedTransfer {
  sessionId: string;
  network: string;
  currency: string;
  tokenContract: string;
  fromAddress: string;
  toAddress: string;
  txHash: string;
  logIndex: number;
  amount: string;
  amountBaseUnits: string;
  blockNumber: number;
  blockHash: string;
}

export interface InsertedTransfer {
  id: string;
  session_id: string;
  /** False when a reverted transfer came back (mined again after a reorg). */
  inserted: boolean;
}

export interface OpenTransfer {
  id: string;
  session_id: string;
  status: 'Pending' | 'Confirmed';
  block_number: string;
  block_hash: string;
}

/** session_transactions as the deposit watcher sees them. */
@Injectable()
export class DetectedTransfersRepository {
  /** Sessions on this network paying to these addresses in this token (one indexed query). */
  async findSessionsByPayAddress(
    manager: EntityManager,
    network: string,
    addresses: string[],
  ): Promise<
    Array<{ id: string; pay_address: string; currency_contract: string; currency: string }>
  > {
    if (!addresses.length) return [];
    return manager.query(
      `SELECT id, pay_address, currency_contract, currency FROM checkout_sessions
        WHERE pay_address = ANY($1::text[]) AND network = $2`,
      [addresses, network],
    );
  }

  /**
   * Inserts each transfer once (network, tx hash, log index) and returns those new or back from
   * Reverted; a transfer already known (and not reverted) is left alone.
   */
  async insertPending(
    manager: EntityManager,
    transfers: DetectedTransfer[],
  ): Promise<InsertedTransfer[]> {
    if (!transfers.length) return [];
    return manager.query(
      `INSERT INTO session_transactions (id, session_id, network, currency, token_contract,
         from_address, to_address, tx_hash, log_index, amount, amount_base_units, status,
         block_number, block_hash)
       SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]),
              unnest($5::text[]), unnest($6::text[]), unnest($7::text[]), unnest($8::text[]),
              unnest($9::int[]), unnest($10::numeric[]), unnest($11::numeric[]), 'Pending',
              unnest($12::bigint[]), unnest($13::text[])
       ON CONFLICT (network, tx_hash, log_index) DO UPDATE
         -- A transfer dropped by a reorg and mined again in another block comes back to life.
         SET status = 'Pending', block_number = EXCLUDED.block_number,
             block_hash = EXCLUDED.block_hash, confirmed_at = NULL, reverted_at = NULL, updated_at = now()
         WHERE session_transactions.status = 'Reverted'
       -- xmax is 0 on a freshly inserted row version, not on one updated by ON CONFLICT.
       RETURNING id, session_id, (xmax = 0) AS inserted`,
      [
        transfers.map(() => newId(ID_PREFIX.sessionTransaction)),
        transfers.map((item) => item.sessionId),
        transfers.map((item) => item.network),
        transfers.map((item) => item.currency),
        transfers.map((item) => item.tokenContract),
        transfers.map((item) => item.fromAddress),
        transfers.map((item) => item.toAddress),
        transfers.map((item) => item.txHash),
        transfers.map((item) => item.logIndex),
        transfers.map((item) => item.amount),
        transfers.map((item) => item.amountBaseUnits),
        transfers.map((item) => item.blockNumber),
        transfers.map((item) => item.blockHash),
      ],
    );
  }

  /** Pending and confirmed transfers at or above a height: those a reorg could still undo. */
  async findOpenFrom(
    manager: EntityManager,
    network: string,
    fromBlock: number,
  ): Promise<OpenTransfer[]> {
    return manager.query(
      `SELECT id, session_id, status, block_number, block_hash FROM session_transactions
        WHERE network = $1 AND status IN ('Pending', 'Confirmed') AND block_number >= $2`,
      [network, fromBlock],
    );
  }

  async findPendingUpTo(
    manager: EntityManager,
    network: string,
    maxBlock: number,
  ): Promise<OpenTransfer[]> {
    return manager.query(
      `SELECT id, session_id, status, block_number, block_hash FROM session_transactions
        WHERE network = $1 AND status = 'Pending' AND block_number <= $2`,
      [network, maxBlock],
    );
  }

  async markReverted(manager: EntityManager, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await manager.query(
      `UPDATE session_transactions SET status = 'Reverted', reverted_at = now(), updated_at = now()
        WHERE id = ANY($1::text[])`,
      [ids],
    );
  }

  async markConfirmed(manager: EntityManager, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await manager.query(
      `UPDATE session_transactions SET status = 'Confirmed', confirmed_at = now(), updated_at = now()
        WHERE id = ANY($1::text[]) AND status = 'Pending'`,
      [ids],
    );
  }
}
