import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SignedTransfer } from '@app/chains';
import { PayoutEvents } from '../payout-events';
import { PayoutRecord } from '../payout.types';
import { AttemptPurpose, PayoutAttempt } from './payout-attempt.types';
import { assertStoredHash } from './stored-bytes';

// Moved to files of their own (issue 28), still importable from here.
export type { AttemptPurpose, AttemptStatus, PayoutAttempt } from './payout-attempt.types';
export type { CoverageReadPoint } from './payout-coverage.repository';
export { UnregisteredHotWalletError } from './payout-nonces.repository';
export type { InFlightPayout } from './payout-tracking.repository';

/** SQL of the payout journal: claims, attempts and final states, each a compare-and-set. */
@Injectable()
export class PayoutJournalRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: PayoutEvents,
  ) {}

  /** Locks a payout that may be sent now: Pending, and approved if it needed a review. */
  async lockSendable(manager: EntityManager, payoutId: string): Promise<PayoutRecord | null> {
    const rows: PayoutRecord[] = await manager.query(
      `SELECT * FROM payouts WHERE id = $1 AND status = 'Pending'
          AND (review_reason IS NULL OR reviewed_at IS NOT NULL) FOR UPDATE`,
      [payoutId],
    );
    return rows[0] ?? null;
  }

  /** Locks a payout that is still Processing (nobody finished it meanwhile). */
  async lockProcessing(manager: EntityManager, payoutId: string): Promise<PayoutRecord | null> {
    const rows: PayoutRecord[] = await manager.query(
      `SELECT * FROM payouts WHERE id = $1 AND status = 'Processing' FOR UPDATE`,
      [payoutId],
    );
    return rows[0] ?? null;
  }

  async findSendable(payoutId: string): Promise<PayoutRecord | null> {
    const rows: PayoutRecord[] = await this.dataSource.query(
      `SELECT * FROM payouts WHERE id = $1 AND status = 'Pending'
          AND (review_reason IS NULL OR reviewed_at IS NOT NULL) AND next_attempt_at <= now()`,
      [payoutId],
    );
    return rows[0] ?? null;
  }

  /**
   * Leases up to `limit` payouts of `payout`'s network and token that may be sent now, `payout`
   * first if it is still due, then the oldest: their `next_attempt_at` moves `leaseMs` ahead, so
   * neither another claim (of this worker or another) nor the reconciler takes them meanwhile. A
   * lease only keeps claims from reading the chain for the same payouts: the claim transaction
   * still locks each row and checks its status, and a worker that dies leaves a lease that just
   * runs out (the reconciler sends the payouts again). SKIP LOCKED: two claims never wait on
   * each other here, and each leases other rows. A refund's payout is leased alone, and never
   * along with another: its sandbox decision may post to the ledger (SandboxFunding.decide), which
   * must not happen while a claim holds other balances' locks.
   */
  async leaseSendable(
    payout: PayoutRecord,
    limit: number,
    leaseMs: number,
  ): Promise<PayoutRecord[]> {
    return this.dataSource.query(
      // In a CTE: TypeORM returns [rows, count] for a bare UPDATE ... RETURNING.
      `WITH leased AS (
       UPDATE payouts p SET next_attempt_at = now() + make_interval(secs => $5::double precision / 1000)
         FROM (SELECT id FROM payouts
                WHERE network = $1 AND token_contract = $2 AND status = 'Pending'
                  AND (review_reason IS NULL OR reviewed_at IS NOT NULL) AND next_attempt_at <= now()
                  AND (id = $3 OR (refund_id IS NULL AND $6::text IS NULL))
                ORDER BY id = $3 DESC, next_attempt_at, id LIMIT $4
                FOR UPDATE SKIP LOCKED) due
        WHERE p.id = due.id
        RETURNING p.*)
       SELECT * FROM leased ORDER BY id = $3 DESC, created_at, id`,
      [
        payout.network,
        payout.token_contract,
        payout.id,
        limit,
        leaseMs,
        (payout as PayoutRecord & { refund_id?: string | null }).refund_id ?? null,
      ],
    );
  }

  /** Ends the lease of payouts a claim left Pending without postponing them (due again now). */
  async endLease(payoutIds: string[]): Promise<void> {
    if (!payoutIds.length) return;
    await this.dataSource.query(
      `UPDATE payouts SET next_attempt_at = now() WHERE id = ANY($1::text[]) AND status = 'Pending'
          AND pending_reason IS DISTINCT FROM 'awaiting_simulation'`,
      [payoutIds],
    );
  }

  /**
   * Locks the payouts among `payoutIds` that may be sent: Pending, approved if reviewed. In id
   * order, as every path that locks several payouts does, so two claims never deadlock.
   */
  async lockSendableMany(manager: EntityManager, payoutIds: string[]): Promise<PayoutRecord[]> {
    return manager.query(
      `SELECT * FROM payouts WHERE id = ANY($1::text[]) AND status = 'Pending'
          AND (review_reason IS NULL OR reviewed_at IS NOT NULL)
        ORDER BY id FOR UPDATE`,
      [payoutIds],
    );
  }

  /** Payout ids the reconciler must (re-)enqueue: sendable now, oldest first. */
  async dueForSending(limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM payouts WHERE status = 'Pending'
          AND (review_reason IS NULL OR reviewed_at IS NOT NULL) AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The live attempts (Signed or Broadcast) with this nonce of `Processing` payouts of the
   * network, whatever the wallet (a rotated key leaves attempts of its old address), newest first.
   */
  async liveAttemptsWithNonce(network: string, nonce: number): Promise<PayoutAttempt[]> {
    return this.dataSource.query(
      `SELECT a.* FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
        WHERE a.network = $1 AND a.nonce = $2 AND a.status IN ('Signed', 'Broadcast')
          AND p.status = 'Processing'
          AND EXISTS (SELECT 1 FROM payout_nonces n WHERE n.network = a.network
                        AND n.wallet_address = a.wallet_address AND n.nonce = a.nonce
                        AND n.payout_id = a.payout_id)
        ORDER BY a.attempt_number DESC`,
      [network, nonce],
    );
  }

  /** The payout's live attempts, read in the caller's transaction (under its row lock). */
  async liveAttempts(manager: EntityManager, payoutId: string): Promise<PayoutAttempt[]> {
    return manager.query(
      `SELECT * FROM payout_attempts WHERE payout_id = $1 AND status IN ('Signed', 'Broadcast')
        ORDER BY attempt_number DESC`,
      [payoutId],
    );
  }

  /** Every attempt of a payout, retired ones too, newest first. */
  async attemptsOf(payoutId: string): Promise<PayoutAttempt[]> {
    return this.dataSource.query(
      `SELECT * FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number DESC`,
      [payoutId],
    );
  }

  /**
   * Whether a proof drawn from `known` (every attempt of the payout, read before the proof) still
   * holds: the attempts are exactly those, each still live or still retired, and every live one
   * is an attempt the proof is about (`provenDead`). A tick that signed meanwhile (another
   * worker, a lock lost with its connection) leaves an attempt the proof never saw: false. The
   * caller holds the payout's row lock, which whoever adds or retires an attempt takes first (a
   * broadcast only moves Signed to Broadcast, both live).
   */
  async attemptsUnchanged(
    manager: EntityManager,
    payoutId: string,
    known: PayoutAttempt[],
    provenDead: (attempt: Pick<PayoutAttempt, 'nonce' | 'wallet_address' | 'tx_hash'>) => boolean,
  ): Promise<boolean> {
    const rows: Array<
      Pick<PayoutAttempt, 'id' | 'status' | 'nonce' | 'wallet_address' | 'tx_hash'>
    > = await manager.query(
      `SELECT id, status, nonce, wallet_address, tx_hash FROM payout_attempts WHERE payout_id = $1`,
      [payoutId],
    );
    const live = (status: string) => status === 'Signed' || status === 'Broadcast';
    const expected = new Map(known.map((attempt) => [String(attempt.id), live(attempt.status)]));
    return (
      rows.length === expected.size &&
      rows.every((row) => expected.get(String(row.id)) === live(row.status)) &&
      rows.filter((row) => live(row.status)).every((row) => provenDead(row))
    );
  }

  /** The number of the payout's newest attempt (0 without any). The caller holds its row lock. */
  async newestAttemptNumber(manager: EntityManager, payoutId: string): Promise<number> {
    const [row]: Array<{ newest: number }> = await manager.query(
      `SELECT COALESCE(max(attempt_number), 0)::int AS newest FROM payout_attempts WHERE payout_id = $1`,
      [payoutId],
    );
    return row.newest;
  }

  /**
   * Stores the first signed transaction of each of these Pending payouts (locked by the caller),
   * before any is broadcast, and makes each the payout's tx_hash and the payout Processing, with
   * its event: `insertAttempt` for many, in three statements and one event write per payout.
   */
  async insertFirstAttempts(
    manager: EntityManager,
    payouts: PayoutRecord[],
    walletAddress: string,
    signed: SignedTransfer[],
  ): Promise<PayoutAttempt[]> {
    const network = payouts[0].network;
    // The whole claim is refused, not only the payout whose bytes are wrong (review r9a, N6): the
    // batch's nonces were handed out together in this transaction (next_nonce moved past them
    // all), and each signed transaction is bound to its nonce. Storing the others without it
    // leaves a nonce nothing will ever use: every later nonce of the wallet could never be mined
    // and would wait, funds held, for a proof that never comes. Rolling back returns the nonces
    // and leaves the payouts Pending (no funds leave, nothing is sent), and the claim's job fails
    // with the error; a signing bug is the signer's, not one payout's.
    for (const transfer of signed) assertStoredHash(transfer.rawTransaction, transfer.txHash);
    const attempts: PayoutAttempt[] = await manager.query(
      `INSERT INTO payout_attempts
         (payout_id, attempt_number, network, wallet_address, nonce, tx_hash, raw_transaction,
          max_fee_per_gas, max_priority_fee_per_gas, gas_limit, expires_at, status, purpose,
          created_at)
       SELECT v.payout_id,
              COALESCE((SELECT max(a.attempt_number) FROM payout_attempts a
                         WHERE a.payout_id = v.payout_id), 0) + 1,
              $1, $2, v.nonce, v.tx_hash, v.raw_transaction, v.max_fee_per_gas,
              v.max_priority_fee_per_gas, v.gas_limit, v.expires_at, 'Signed', 'transfer',
              clock_timestamp()
         FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::numeric[],
                     $8::numeric[], $9::numeric[], $10::timestamptz[])
              AS v(payout_id, nonce, tx_hash, raw_transaction, max_fee_per_gas,
                   max_priority_fee_per_gas, gas_limit, expires_at)
       RETURNING *`,
      [
        network,
        walletAddress,
        payouts.map((payout) => payout.id),
        signed.map((transfer) => transfer.nonce),
        signed.map((transfer) => transfer.txHash),
        signed.map((transfer) => transfer.rawTransaction),
        signed.map((transfer) => transfer.fees?.maxFeePerGas.toString() ?? null),
        signed.map((transfer) => transfer.fees?.maxPriorityFeePerGas.toString() ?? null),
        signed.map((transfer) => transfer.gasLimit?.toString() ?? null),
        signed.map((transfer) => transfer.expiresAt),
      ],
    );
    await manager.query(
      `UPDATE payouts p SET status = 'Processing', tx_hash = v.tx_hash, pending_reason = NULL,
              updated_at = now()
         FROM unnest($1::text[], $2::text[]) AS v(id, tx_hash)
        WHERE p.id = v.id`,
      [payouts.map((payout) => payout.id), signed.map((transfer) => transfer.txHash)],
    );
    for (const payout of payouts) {
      await this.events.statusChanged(manager, payout.id, 'Pending');
    }
    const byPayout = new Map(attempts.map((attempt) => [attempt.payout_id, attempt]));
    return payouts.map((payout) => byPayout.get(payout.id)!);
  }

  /**
   * Stores a signed transaction (before it is ever broadcast) and makes it the payout's tx_hash.
   * A cancel leaves the payout's tx_hash alone: it is no transfer of the payout.
   */
  async insertAttempt(
    manager: EntityManager,
    payout: PayoutRecord,
    walletAddress: string,
    signed: SignedTransfer,
    purpose: AttemptPurpose = 'transfer',
  ): Promise<PayoutAttempt> {
    assertStoredHash(signed.rawTransaction, signed.txHash);
    const [attempt]: PayoutAttempt[] = await manager.query(
      `INSERT INTO payout_attempts
         (payout_id, attempt_number, network, wallet_address, nonce, tx_hash, raw_transaction,
          max_fee_per_gas, max_priority_fee_per_gas, gas_limit, expires_at, status, purpose,
          created_at)
       SELECT $1, COALESCE(max(attempt_number), 0) + 1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'Signed', $11,
              clock_timestamp()
         FROM payout_attempts WHERE payout_id = $1
       RETURNING *`,
      [
        payout.id,
        payout.network,
        walletAddress,
        signed.nonce,
        signed.txHash,
        signed.rawTransaction,
        signed.fees?.maxFeePerGas.toString() ?? null,
        signed.fees?.maxPriorityFeePerGas.toString() ?? null,
        signed.gasLimit?.toString() ?? null,
        signed.expiresAt,
        purpose,
      ],
    );
    if (purpose === 'cancel') return attempt;
    await manager.query(
      `UPDATE payouts SET status = 'Processing', tx_hash = $2, pending_reason = NULL, updated_at = now()
        WHERE id = $1`,
      [payout.id, signed.txHash],
    );
    // A replacement keeps the payout Processing: only the first signature is news.
    if (payout.status === 'Pending') await this.events.statusChanged(manager, payout.id, 'Pending');
    return attempt;
  }

  /** Retires live attempts that can never be mined (their nonce is taken, or they expired). */
  async retireAttempts(
    manager: EntityManager,
    payoutId: string,
    attemptIds: string[],
    status: 'Superseded' | 'Expired',
  ): Promise<number> {
    // Counted in a CTE: TypeORM returns [rows, count] for a bare UPDATE ... RETURNING.
    const [{ retired }]: Array<{ retired: number }> = await manager.query(
      `WITH retired AS (
         UPDATE payout_attempts SET status = $3, updated_at = now()
          WHERE payout_id = $1 AND id = ANY($2::bigint[]) AND status IN ('Signed', 'Broadcast')
          RETURNING 1)
       SELECT count(*)::int AS retired FROM retired`,
      [payoutId, attemptIds, status],
    );
    return retired;
  }

  /**
   * `inPoolSince`: 'now' when the node took it now, 'before' when it had it already (its wait
   * goes on from the last acceptance, or from signing), null when it did not take it.
   */
  async recordBroadcast(
    attemptId: string,
    result: string,
    inPoolSince: 'now' | 'before' | null,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE payout_attempts
          SET broadcast_count = broadcast_count + 1,
              last_broadcast_at = CASE WHEN $3 = 'now' THEN COALESCE(last_broadcast_at, now())
                                       ELSE last_broadcast_at END,
              last_broadcast_result = $2, updated_at = now(),
              status = CASE WHEN $3 IS NOT NULL AND status = 'Signed' THEN 'Broadcast' ELSE status END
        WHERE id = $1`,
      [attemptId, result.slice(0, 500), inPoolSince],
    );
  }

  /** The mined attempt's hash becomes the payout's, so merchants see the transaction that counts. */
  async setTxHash(payoutId: string, txHash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE payouts SET tx_hash = $2, updated_at = now()
        WHERE id = $1 AND status = 'Processing' AND tx_hash IS DISTINCT FROM $2`,
      [payoutId, txHash],
    );
  }

  async markCompleted(manager: EntityManager, payoutId: string, txHash: string): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'Completed', tx_hash = $2, completed_at = now(),
              pending_reason = NULL, updated_at = now() WHERE id = $1`,
      [payoutId, txHash],
    );
  }

  async markFailed(
    manager: EntityManager,
    payoutId: string,
    reason: string,
    txHash: string | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'Failed', error_reason = $2, tx_hash = COALESCE($3, tx_hash),
              pending_reason = NULL, updated_at = now() WHERE id = $1`,
      [payoutId, reason, txHash],
    );
  }

  /**
   * Parks a sandbox payout that simulated money funds (SandboxFunding): never due again
   * ('infinity'), `pending_reason` awaiting_simulation, until a test helper completes or fails it.
   * In the caller's transaction, under the payout's row lock.
   */
  async awaitSimulation(manager: EntityManager, payoutId: string): Promise<void> {
    await manager.query(
      `UPDATE payouts SET pending_reason = 'awaiting_simulation', next_attempt_at = 'infinity',
              awaiting_simulation_since = now(), updated_at = now()
        WHERE id = $1 AND status = 'Pending'`,
      [payoutId],
    );
  }

  /** Leaves a Pending payout waiting, with the reason shown to the merchant. */
  async postpone(payoutId: string, reason: string, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE payouts SET pending_reason = $2, updated_at = now(),
              next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND status = 'Pending'`,
      [payoutId, reason, delayMs],
    );
  }
}
