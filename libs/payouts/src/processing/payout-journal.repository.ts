import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SignedTransfer } from '@app/chains';
import { whileAdvisoryLocked } from '@app/database';
import { PayoutEvents } from '../payout-events';
import { PayoutRecord } from '../payout.types';
import { assertStoredHash } from './stored-bytes';

export type AttemptStatus = 'Signed' | 'Broadcast' | 'Superseded' | 'Expired';

/**
 * 'transfer': the payout's token transfer. 'cancel': a zero-value send to the hot wallet itself
 * with the payout's nonce (`payouts:cancel-nonce`); mined, it fails the payout, never completes it.
 */
export type AttemptPurpose = 'transfer' | 'cancel';

/** One stored transaction of a payout (payout_attempts). */
export interface PayoutAttempt {
  id: string;
  payout_id: string;
  attempt_number: number;
  network: string;
  wallet_address: string;
  nonce: string | null;
  tx_hash: string;
  raw_transaction: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  gas_limit: string | null;
  expires_at: Date | null;
  status: AttemptStatus;
  purpose: AttemptPurpose;
  broadcast_count: number;
  /**
   * When a node first took it into its pool. Neither "already known" nor a later acceptance moves
   * it: behind a load balancer a backend that never had it (or evicted it) takes it again at
   * every re-send, which would put off its replacement for as long as a fee spike lasts.
   */
  last_broadcast_at: Date | null;
  last_broadcast_result: string | null;
  /**
   * When it was stored: clock_timestamp() at the insert, not its transaction's start (a claim
   * waits for the wallet's lock). The tracker compares it with the database's clock, never its
   * own (review r6, L1).
   */
  created_at: Date;
  /** Touched by every broadcast, accepted or not. */
  updated_at: Date;
}

/** A `Processing` payout with its live attempts (Signed or Broadcast), newest first. */
export interface InFlightPayout extends PayoutRecord {
  attempts: PayoutAttempt[];
}

/**
 * This worker's key is not the network's registered hot wallet (another worker started with
 * another key file registered its own): it must not sign from it.
 */
export class UnregisteredHotWalletError extends Error {
  constructor(
    readonly network: string,
    readonly address: string,
  ) {
    super(`Hot wallet ${address} of ${network} is not the registered one.`);
  }
}

/**
 * What a coverage check's balance read saw: EVM, the wallet's mined count at the block read;
 * TRON (no nonces), the database's clock just before the read (`coverageClock`).
 */
export type CoverageReadPoint =
  { fromNonce: number; readAt?: undefined } | { fromNonce: null; readAt: Date };

/** SQL of the payout journal: claims, attempts and final states, each a compare-and-set. */
@Injectable()
export class PayoutJournalRepository {
  private readonly logger = new Logger(PayoutJournalRepository.name);
  /** Networks whose tracker tick runs in this process. */
  private readonly tracking = new Set<string>();

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
   * Net amounts of this token that a balance read earlier does not show as gone yet. EVM
   * (`since.fromNonce`, the wallet's mined count at the block of that read): every payout signed
   * at or above it, finished since or not (a reverted one takes no tokens: Failed). TRON
   * (`since.readAt`, the database's clock just before the read): every payout in flight, mined or
   * not, and every payout Completed since then (mined after the read, its tokens are still in it:
   * review r6, M2); counting one twice only delays. Run under the wallet's row lock, it includes
   * every claim made before this one.
   */
  async committedNetAmount(
    manager: EntityManager,
    network: string,
    walletAddress: string,
    tokenContract: string,
    since: CoverageReadPoint,
  ): Promise<string> {
    const fromNonce = since.fromNonce;
    const [row]: Array<{ total: string }> =
      fromNonce === null
        ? await manager.query(
            `SELECT COALESCE(sum(net_amount), 0) AS total FROM payouts
              WHERE network = $1 AND token_contract = $2
                AND (status = 'Processing' OR (status = 'Completed' AND updated_at >= $3))`,
            [network, tokenContract, since.readAt],
          )
        : await manager.query(
            `SELECT COALESCE(sum(p.net_amount), 0) AS total
               FROM payouts p
              WHERE p.token_contract = $3 AND p.status IN ('Processing', 'Completed')
                AND p.id IN (SELECT payout_id FROM payout_nonces
                              WHERE network = $1 AND wallet_address = $2 AND nonce >= $4)`,
            [network, walletAddress, tokenContract, fromNonce],
          );
    return row.total;
  }

  /**
   * Native coin (wei) that transactions not yet mined as of the balance read may still burn: per
   * nonce at or above `fromNonce`, the largest gas limit x max fee among its live attempts (only
   * one of them can be mined), whatever became of its payout since (mined after the read, it
   * burnt gas the balance read does not show). TRON (`since.readAt`) has no nonces and no gas
   * price: `tronFeeLimitSun` per payout in flight, mined or not, and per payout that went on chain
   * and finished since the read, reverted or not (its fee is not in the read: review r6, M2);
   * counting one twice only delays. Under the wallet's row lock.
   */
  async committedFees(
    manager: EntityManager,
    network: string,
    walletAddress: string,
    since: CoverageReadPoint,
    tronFeeLimitSun: string,
  ): Promise<bigint> {
    const fromNonce = since.fromNonce;
    const [row]: Array<{ total: string }> =
      fromNonce === null
        ? await manager.query(
            `SELECT (count(*) * $2::numeric)::text AS total FROM payouts
              WHERE network = $1
                AND (status = 'Processing'
                     OR (status IN ('Completed', 'Failed') AND updated_at >= $3
                         AND tx_hash IS NOT NULL))`,
            [network, tronFeeLimitSun, since.readAt],
          )
        : await manager.query(
            `SELECT COALESCE(sum(most), 0)::text AS total FROM (
               SELECT max(a.gas_limit * a.max_fee_per_gas) AS most
                 FROM payout_attempts a
                WHERE a.network = $1 AND a.wallet_address = $2 AND a.nonce >= $3
                  AND a.status IN ('Signed', 'Broadcast')
                GROUP BY a.nonce) per_nonce`,
            [network, walletAddress, fromNonce],
          );
    return BigInt(row.total);
  }

  /**
   * The wallets that signed live attempts of this network's `Processing` payouts (one but for a
   * rotated key): the tracker reads their mined counts before it picks its window.
   */
  async inFlightWallets(network: string): Promise<string[]> {
    const rows: Array<{ wallet_address: string }> = await this.dataSource.query(
      `SELECT DISTINCT a.wallet_address
         FROM payouts p JOIN payout_attempts a ON a.payout_id = p.id
        WHERE p.network = $1 AND p.status = 'Processing' AND a.status IN ('Signed', 'Broadcast')`,
      [network],
    );
    return rows.map((row) => row.wallet_address);
  }

  /**
   * One tick's window of `Processing` payouts, with their live attempts (newest first) and the
   * database's clock at the read. `lowest` (EVM): per wallet, the payouts holding its lowest live
   * nonces at or above its mined count, at most `lowest.perWallet` each and `lowest.total` in
   * all: a wallet's later nonces all wait behind them, so every tick must look at them (review
   * r6, M1: a window by `updated_at` left a dropped lowest nonce unseen for good). The rest of
   * `limit`: the payouts after `after` in id order, then from the first again, so a cursor the
   * caller moves to the last id returned walks every payout in flight over successive ticks.
   */
  async inFlight(
    network: string,
    window: {
      limit: number;
      after: string | null;
      lowest?: { minedCounts: Map<string, number>; perWallet: number; total: number };
    },
  ): Promise<{ payouts: InFlightPayout[]; clock: Date | null; walked: string | null }> {
    const wallets = [...(window.lowest?.minedCounts.keys() ?? [])];
    const rows: Array<InFlightPayout & { walk_last: string | null; clock: Date }> =
      await this.dataSource.query(
        `WITH lowest AS (
           SELECT l.payout_id AS id FROM unnest($3::text[], $4::bigint[]) AS w(wallet_address, mined)
             CROSS JOIN LATERAL (
               SELECT DISTINCT ON (a.nonce) a.payout_id, a.nonce FROM payout_attempts a
                WHERE a.network = $1 AND a.wallet_address = w.wallet_address
                  AND a.nonce >= w.mined AND a.status IN ('Signed', 'Broadcast')
                  AND EXISTS (SELECT 1 FROM payouts p
                               WHERE p.id = a.payout_id AND p.status = 'Processing')
                ORDER BY a.nonce LIMIT $5) l
            ORDER BY l.nonce LIMIT $6),
         walk AS (
           SELECT id, lap FROM (
             (SELECT id, 0 AS lap FROM payouts
               WHERE network = $1 AND status = 'Processing' AND ($7::text IS NULL OR id > $7)
                 AND id NOT IN (SELECT id FROM lowest)
               ORDER BY id LIMIT $2)
             UNION ALL
             (SELECT id, 1 AS lap FROM payouts
               WHERE network = $1 AND status = 'Processing' AND $7::text IS NOT NULL AND id <= $7
                 AND id NOT IN (SELECT id FROM lowest)
               ORDER BY id LIMIT $2)) laps
            ORDER BY lap, id LIMIT greatest($2 - (SELECT count(*) FROM lowest), 0)),
         picked AS (SELECT id FROM lowest UNION ALL SELECT id FROM walk)
         SELECT p.*, clock_timestamp() AS clock,
                (SELECT id FROM walk ORDER BY lap DESC, id DESC LIMIT 1) AS walk_last, COALESCE((
                  SELECT json_agg(a ORDER BY a.attempt_number DESC) FROM payout_attempts a
                   WHERE a.payout_id = p.id AND a.status IN ('Signed', 'Broadcast')), '[]'::json) AS attempts
           FROM picked JOIN payouts p ON p.id = picked.id`,
        [
          network,
          window.limit,
          wallets,
          wallets.map((wallet) => window.lowest!.minedCounts.get(wallet)!),
          window.lowest?.perWallet ?? 0,
          window.lowest?.total ?? 0,
          window.after,
        ],
      );
    // The walk goes on after the last id it took this time (the database's order of ids).
    const walked = rows.length ? (rows[0].walk_last ?? window.after) : window.after;
    const payouts = rows.map(({ walk_last: _last, clock: _clock, ...payout }) => payout);
    return { payouts: payouts as InFlightPayout[], clock: rows[0]?.clock ?? null, walked };
  }

  /**
   * Runs `work` unless a tick of this network's tracker runs already, in this process or another
   * (then undefined at once). A session-level advisory lock on a connection of its own: a worker
   * that dies frees it with its connection.
   */
  async whileTrackingLocked<T>(network: string, work: () => Promise<T>): Promise<T | undefined> {
    if (this.tracking.has(network)) return undefined;
    this.tracking.add(network);
    try {
      const run = await whileAdvisoryLocked(
        this.dataSource,
        `payouts.track:${network}`,
        false,
        work,
      );
      return run.ran ? run.value : undefined;
    } finally {
      this.tracking.delete(network);
    }
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
   * The database's clock, read just before a TRON balance read: a payout finished at or after it
   * may have left the wallet after the read (finishing a payout stamps `updated_at` with its
   * transaction's start, which follows the tracker's chain read). The database's clock, never the
   * worker's: the tracker of another machine stamps it.
   */
  async coverageClock(): Promise<Date> {
    const [row]: Array<{ clock: Date }> = await this.dataSource.query(
      `SELECT clock_timestamp() AS clock`,
    );
    return row.clock;
  }

  /** Locks the network's hot wallet row: nonces are handed out one signer at a time. */
  async lockWalletNonce(
    manager: EntityManager,
    network: string,
    address: string,
  ): Promise<number | null> {
    const rows: Array<{ next_nonce: string | null }> = await manager.query(
      `SELECT next_nonce FROM hot_wallets WHERE network = $1 AND address = $2 FOR UPDATE`,
      [network, address],
    );
    if (!rows.length) throw new UnregisteredHotWalletError(network, address);
    return rows[0].next_nonce === null ? null : Number(rows[0].next_nonce);
  }

  /**
   * Gives the first free nonce from `nonce` on to the payout and moves the wallet's next nonce
   * past it; returns the nonce given. The caller holds the wallet row's lock. A nonce held by a
   * payout still in flight is never taken. One held by a finished payout can only come back from
   * a chain that no longer has it (a reset devnet) or from a node that lags: it is taken over,
   * which is safe, as a nonce can be mined once only.
   */
  async assignNonce(
    manager: EntityManager,
    network: string,
    address: string,
    nonce: number,
    payoutId: string,
  ): Promise<number> {
    for (let candidate = nonce; ; candidate++) {
      const [assigned]: Array<{ previous: string | null }> = await manager.query(
        `WITH previous AS (
           SELECT payout_id FROM payout_nonces WHERE network = $1 AND wallet_address = $2 AND nonce = $3)
         INSERT INTO payout_nonces (network, wallet_address, nonce, payout_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (network, wallet_address, nonce) DO UPDATE
           SET payout_id = EXCLUDED.payout_id, created_at = now()
           WHERE NOT EXISTS (SELECT 1 FROM payouts p
                              WHERE p.id = payout_nonces.payout_id AND p.status = 'Processing')
         RETURNING (SELECT payout_id FROM previous) AS previous`,
        [network, address, candidate, payoutId],
      );
      if (!assigned) continue;
      if (assigned.previous) {
        this.logger.warn(
          { network, nonce: candidate, payoutId, previousPayoutId: assigned.previous },
          'Nonce of a finished payout handed out again: the chain was reset or the node lags',
        );
      }
      await manager.query(
        `UPDATE hot_wallets SET next_nonce = $3, updated_at = now() WHERE network = $1 AND address = $2`,
        [network, address, candidate + 1],
      );
      return candidate;
    }
  }

  /**
   * `payoutIds.length` nonces for these payouts, in that order, from `from` on: consecutive but
   * for nonces still held by payouts in flight (skipped, as `assignNonce` skips them). One
   * statement for the lot; moves the wallet's next nonce past the last. The caller holds the
   * wallet row's lock, under which no other nonce is handed out, so every nonce planned is free
   * when inserted; if one were not, the whole claim rolls back (nothing signed is kept).
   */
  async assignNonces(
    manager: EntityManager,
    network: string,
    address: string,
    from: number,
    payoutIds: string[],
  ): Promise<number[]> {
    const held: Array<{ nonce: string }> = await manager.query(
      `SELECT n.nonce FROM payout_nonces n JOIN payouts p ON p.id = n.payout_id
        WHERE n.network = $1 AND n.wallet_address = $2 AND n.nonce >= $3 AND p.status = 'Processing'`,
      [network, address, from],
    );
    const taken = new Set(held.map((row) => Number(row.nonce)));
    const nonces: number[] = [];
    for (let candidate = from; nonces.length < payoutIds.length; candidate++) {
      if (!taken.has(candidate)) nonces.push(candidate);
    }
    const assigned: Array<{ nonce: string; previous: string | null }> = await manager.query(
      `WITH wanted AS (
         SELECT * FROM unnest($3::bigint[], $4::text[]) AS w(nonce, payout_id)),
       previous AS (
         SELECT n.nonce, n.payout_id FROM payout_nonces n JOIN wanted w ON w.nonce = n.nonce
          WHERE n.network = $1 AND n.wallet_address = $2)
       INSERT INTO payout_nonces (network, wallet_address, nonce, payout_id)
       SELECT $1, $2, nonce, payout_id FROM wanted
       ON CONFLICT (network, wallet_address, nonce) DO UPDATE
         SET payout_id = EXCLUDED.payout_id, created_at = now()
         WHERE NOT EXISTS (SELECT 1 FROM payouts p
                            WHERE p.id = payout_nonces.payout_id AND p.status = 'Processing')
       RETURNING nonce, (SELECT payout_id FROM previous WHERE previous.nonce = payout_nonces.nonce) AS previous`,
      [network, address, nonces, payoutIds],
    );
    if (assigned.length !== nonces.length) {
      throw new Error(
        `Nonces ${nonces.join(', ')} of ${network} ${address}: ${nonces.length - assigned.length} held by payouts in flight`,
      );
    }
    for (const row of assigned) {
      if (!row.previous) continue;
      this.logger.warn(
        { network, nonce: Number(row.nonce), previousPayoutId: row.previous },
        'Nonce of a finished payout handed out again: the chain was reset or the node lags',
      );
    }
    await manager.query(
      `UPDATE hot_wallets SET next_nonce = $3, updated_at = now() WHERE network = $1 AND address = $2`,
      [network, address, nonces[nonces.length - 1] + 1],
    );
    return nonces;
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
