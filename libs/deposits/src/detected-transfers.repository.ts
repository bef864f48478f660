import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ID_PREFIX, newId, realTransfersOnly } from '@app/common';

/** A token transfer as the watcher records it: where, what, how much, and in which block. */
export interface RecordedTransferFacts {
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

/** A transfer a session takes. */
export interface DetectedTransfer extends RecordedTransferFacts {
  sessionId: string;
  /** Already deep enough when first seen (a backlog): written Confirmed at once. */
  confirmed?: boolean;
}

export interface InsertedTransfer {
  id: string;
  session_id: string;
  /** False when a reverted transfer came back (mined again after a reorg). */
  inserted: boolean;
  status: 'Pending' | 'Confirmed';
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
   * Inserts each transfer once (network, tx hash, log index), Pending or, when already deep
   * enough, Confirmed, and returns those new or back from Reverted; a transfer already known (and
   * not reverted) is left alone.
   */
  async insertDetected(
    manager: EntityManager,
    transfers: DetectedTransfer[],
  ): Promise<InsertedTransfer[]> {
    // One statement may not touch a row twice: a provider that lists a log twice (seen from
    // load-balanced RPCs) would fail every tick until it stopped.
    const unique = [
      ...new Map(
        transfers.map((item) => [`${item.network}:${item.txHash}:${item.logIndex}`, item]),
      ).values(),
    ];
    if (!unique.length) return [];
    // One JSON document rather than one array per column: JSON.stringify is native, where pg
    // escapes every element of a text[] parameter in JavaScript.
    const rows = unique.map((item) => ({
      id: newId(ID_PREFIX.sessionTransaction),
      session_id: item.sessionId,
      network: item.network,
      currency: item.currency,
      token_contract: item.tokenContract,
      from_address: item.fromAddress,
      to_address: item.toAddress,
      tx_hash: item.txHash,
      log_index: item.logIndex,
      amount: item.amount,
      amount_base_units: item.amountBaseUnits,
      status: item.confirmed ? 'Confirmed' : 'Pending',
      block_number: item.blockNumber,
      block_hash: item.blockHash,
    }));
    return manager.query(
      `INSERT INTO session_transactions (id, session_id, network, currency, token_contract,
         from_address, to_address, tx_hash, log_index, amount, amount_base_units, status,
         block_number, block_hash, confirmed_at)
       SELECT v.id, v.session_id, v.network, v.currency, v.token_contract, v.from_address,
              v.to_address, v.tx_hash, v.log_index, v.amount, v.amount_base_units, v.status,
              v.block_number, v.block_hash, CASE WHEN v.status = 'Confirmed' THEN now() END
         FROM json_to_recordset($1::json)
           AS v(id text, session_id text, network text, currency text, token_contract text,
                from_address text, to_address text, tx_hash text, log_index int, amount numeric,
                amount_base_units numeric, status text, block_number bigint, block_hash text)
       ON CONFLICT (network, tx_hash, log_index) DO UPDATE
         -- A transfer dropped by a reorg and mined again in another block comes back to life.
         SET status = EXCLUDED.status, block_number = EXCLUDED.block_number,
             block_hash = EXCLUDED.block_hash, confirmed_at = EXCLUDED.confirmed_at,
             reverted_at = NULL, updated_at = now()
         WHERE session_transactions.status = 'Reverted'
       -- xmax is 0 on a freshly inserted row version, not on one updated by ON CONFLICT.
       RETURNING id, session_id, (xmax = 0) AS inserted, status`,
      [JSON.stringify(rows)],
    );
  }

  /**
   * Transfers a reorg could still undo: every Pending one at any depth (a watcher stopped for
   * longer than the window finds its block replaced below it, and must revert it before the copy
   * mined again can be recorded), and the Confirmed ones at or above `fromBlock`.
   */
  async findRevertible(
    manager: EntityManager,
    network: string,
    fromBlock: number,
  ): Promise<OpenTransfer[]> {
    // Two branches rather than an OR: each is one index scan (pending_idx, network_block_idx).
    return manager.query(
      // Simulated transfers (sandbox test helpers) are on no chain: no block of theirs to check.
      `SELECT id, session_id, status, block_number, block_hash FROM session_transactions
        WHERE network = $1 AND status = 'Pending' AND ${realTransfersOnly()}
       UNION ALL
       SELECT id, session_id, status, block_number, block_hash FROM session_transactions
        WHERE network = $1 AND status = 'Confirmed' AND block_number >= $2
          AND ${realTransfersOnly()}`,
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
        WHERE network = $1 AND status = 'Pending' AND block_number <= $2
          AND ${realTransfersOnly()}`,
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
