import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { realTransfersOnly } from '@app/common';
import { MAX_RETRY_BACKOFF_SECONDS } from './treasury-settings';

// Settlement transactions are short (the worker's, with no user input in them); a transfer they
// confirm carries their start time, and may commit up to this long after it.
const INGEST_OVERLAP = '10 minutes';

/**
 * Confirmed transfers to deposit addresses of ($1 network, $2 currency) since $3 less the overlap
 * $4: (address, at, block_number). The sandbox's simulated payments are left out: they never
 * reached the address, and marking it would make the planner clear it on a zero it reads.
 */
const ACTIVITY_SINCE = `
  SELECT s.pay_address AS address, t.confirmed_at AS at, t.block_number
    FROM session_transactions t JOIN checkout_sessions s ON s.id = t.session_id
   WHERE t.network = $1 AND t.status = 'Confirmed' AND s.currency = $2
     AND t.confirmed_at > $3::timestamptz - $4::interval AND ${realTransfersOnly('t')}
  UNION ALL
  -- updated_at, not created_at: a transfer a reorg reverted and a later block revived keeps its
  -- created_at, and must be marked again.
  SELECT p.address, u.updated_at, u.block_number
    FROM unmatched_transfers u JOIN pay_addresses p ON p.address = u.to_address
   WHERE u.network = $1 AND u.currency = $2 AND u.status = 'detected'
     AND u.updated_at > $3::timestamptz - $4::interval`;

/** Which pending addresses a pass reads: the key's, at most `limit`, backing off as of `now`. */
export interface CandidateQuery {
  family: string;
  fingerprint: string;
  limit: number;
  now: Date;
  /** The network's retryBackoffSeconds. */
  backoffSeconds: number;
}

/**
 * A row `w` (of sweep_addresses, with p its pay_addresses row) a pass may plan: pending, not
 * frozen, of the family and key fingerprint given, not in a live sweep of the token ($1, $2), and
 * not backing off: after n sweeps in a row that did not sweep it, it waits backoff x 2^(n-1)
 * seconds (capped) from the last one's end.
 */
const PLANNABLE = (
  family: string,
  fingerprint: string,
  now: string,
  backoff: string,
  cap: string,
) => `
  w.pending_since IS NOT NULL AND w.frozen_at IS NULL
  AND p.chain_family = ${family} AND p.key_fingerprint = ${fingerprint}
  AND (w.unswept_in_row = 0 OR w.unswept_at IS NULL
       OR w.unswept_at + make_interval(secs => LEAST(
            ${backoff}::float8 * power(2, LEAST(w.unswept_in_row, 30) - 1), ${cap}::float8))
          <= ${now}::timestamptz)
  AND NOT EXISTS (SELECT 1 FROM sweep_items i
                   WHERE i.network = $1 AND i.currency = $2
                     AND lower(i.address) = lower(w.address) AND i.status = 'Pending')`;

const plannable = (query: CandidateQuery) => [
  query.family,
  query.fingerprint,
  query.now,
  query.backoffSeconds,
  MAX_RETRY_BACKOFF_SECONDS,
];

export interface PendingDepositAddress {
  address: string;
  derivationIndex: number;
  pendingSince: Date;
  pendingBlock: number;
}

/**
 * Which deposit addresses may hold unswept tokens (sweep_addresses). Fed from confirmed session
 * transactions and unmatched transfers; cleared only by a positive proof, a zero balance read at
 * a block at or past the newest transfer known.
 */
@Injectable()
export class SweepPlannerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Marks the addresses of transfers confirmed since the last call (with an overlap: a transfer
   * is marked at most once per block it adds, so reading one twice changes nothing).
   */
  async ingest(network: string, currency: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [cursor] = (await manager.query(
        `INSERT INTO sweep_cursors (network, currency, ingested_until)
         VALUES ($1, $2, '-infinity') ON CONFLICT (network, currency) DO UPDATE
           SET ingested_until = sweep_cursors.ingested_until
         RETURNING ingested_until, now() AS now`,
        [network, currency],
      )) as Array<{ ingested_until: Date; now: Date }>;
      const rows = (await manager.query(
        `WITH activity AS (${ACTIVITY_SINCE})
         INSERT INTO sweep_addresses AS w (network, currency, address, pending_since, pending_block)
         SELECT $1, $2, address, min(at), max(block_number) FROM activity GROUP BY address
         ON CONFLICT (network, currency, address) DO UPDATE
           SET pending_since = LEAST(w.pending_since, EXCLUDED.pending_since),
               pending_block = GREATEST(w.pending_block, EXCLUDED.pending_block),
               updated_at = now()
         WHERE EXCLUDED.pending_block > w.checked_through_block
         RETURNING 1`,
        [network, currency, cursor.ingested_until, INGEST_OVERLAP],
      )) as unknown[];
      await manager.query(
        `UPDATE sweep_cursors SET ingested_until = $3 WHERE network = $1 AND currency = $2`,
        [network, currency, cursor.now],
      );
      return rows.length;
    });
  }

  /**
   * A pass's candidates: transfers confirmed since the last pass ingested, then the pending
   * addresses. `readOnly` (treasury:status): the same list, with nothing written.
   */
  async candidates(
    network: string,
    currency: string,
    query: CandidateQuery,
    readOnly = false,
  ): Promise<PendingDepositAddress[]> {
    if (readOnly) return this.preview(network, currency, query);
    await this.ingest(network, currency);
    return this.pending(network, currency, query);
  }

  /**
   * What `pending` would answer right after an `ingest`, written nowhere (treasury:status): the
   * stored rows merged with the transfers confirmed since the cursor, as ingest would merge them.
   */
  async preview(
    network: string,
    currency: string,
    query: CandidateQuery,
  ): Promise<PendingDepositAddress[]> {
    const [cursor]: Array<{ ingested_until: Date }> = await this.dataSource.query(
      `SELECT ingested_until FROM sweep_cursors WHERE network = $1 AND currency = $2`,
      [network, currency],
    );
    const rows: PendingRow[] = await this.dataSource.query(
      `WITH activity AS (${ACTIVITY_SINCE}),
       fresh AS (SELECT address, min(at) AS at, max(block_number) AS block
                   FROM activity GROUP BY address),
       stored AS (SELECT * FROM sweep_addresses WHERE network = $1 AND currency = $2),
       w AS (
         SELECT COALESCE(w.address, f.address) AS address, w.frozen_at,
                COALESCE(w.unswept_in_row, 0) AS unswept_in_row, w.unswept_at,
                CASE WHEN f.block > COALESCE(w.checked_through_block, -1)
                     THEN LEAST(w.pending_since, f.at) ELSE w.pending_since END AS pending_since,
                CASE WHEN f.block > COALESCE(w.checked_through_block, -1)
                     THEN GREATEST(w.pending_block, f.block) ELSE w.pending_block END AS pending_block
           FROM stored w FULL JOIN fresh f ON f.address = w.address)
       SELECT w.address, p.derivation_index, w.pending_since, w.pending_block
         FROM w JOIN pay_addresses p ON p.address = w.address
        WHERE ${PLANNABLE('$5', '$6', '$7', '$8', '$9')}
        ORDER BY w.pending_since LIMIT $10`,
      [
        network,
        currency,
        cursor?.ingested_until ?? '-infinity',
        INGEST_OVERLAP,
        ...plannable(query),
        query.limit,
      ],
    );
    return rows.map(toPending);
  }

  /**
   * Pending addresses not in a live sweep and not backing off, oldest first, with their
   * derivation index.
   */
  async pending(
    network: string,
    currency: string,
    query: CandidateQuery,
  ): Promise<PendingDepositAddress[]> {
    const rows: PendingRow[] = await this.dataSource.query(
      `SELECT w.address, p.derivation_index, w.pending_since, w.pending_block
         FROM sweep_addresses w
         JOIN pay_addresses p ON p.address = w.address
        WHERE w.network = $1 AND w.currency = $2 AND ${PLANNABLE('$3', '$4', '$5', '$6', '$7')}
        ORDER BY w.pending_since LIMIT $8`,
      [network, currency, ...plannable(query), query.limit],
    );
    return rows.map(toPending);
  }

  /** Read empty at `block`: cleared, unless a transfer past that block arrived meanwhile. */
  async markEmpty(network: string, currency: string, addresses: string[], block: number) {
    if (!addresses.length) return;
    await this.dataSource.query(
      `UPDATE sweep_addresses
          SET pending_since = CASE WHEN pending_block <= $4 THEN NULL ELSE pending_since END,
              -- Nothing left to sweep: nothing waits for a TRX read either.
              trx_read_waiting_since = CASE WHEN pending_block <= $4 THEN NULL
                                            ELSE trx_read_waiting_since END,
              checked_through_block = GREATEST(checked_through_block, $4), updated_at = now()
        WHERE network = $1 AND currency = $2 AND address = ANY($3)`,
      [network, currency, addresses, block],
    );
  }

  /**
   * treasury:unfreeze: the operator's word that an address may be swept again (a blacklist
   * lifted, a wrong freeze). Its failures and its backoff start from zero (it is tried at the
   * next pass, not hours later); true when it was frozen.
   */
  async unfreeze(network: string, currency: string, address: string): Promise<boolean> {
    // As a SELECT: TypeORM answers an UPDATE with [rows, count], not the rows.
    const [{ unfrozen }]: Array<{ unfrozen: number }> = await this.dataSource.query(
      `WITH done AS (
         UPDATE sweep_addresses SET frozen_at = NULL, failures = 0, unswept_in_row = 0,
                                    unswept_at = NULL, updated_at = now()
          WHERE network = $1 AND currency = $2 AND frozen_at IS NOT NULL
            AND (address = $3 OR (address LIKE '0x%' AND lower(address) = lower($3)))
         RETURNING 1)
       SELECT count(*)::int AS unfrozen FROM done`,
      [network, currency, address],
    );
    return unfrozen > 0;
  }

  /**
   * Pending addresses waiting out their backoff at `now` (treasury:status): how many sweeps in a
   * row left each unswept, and until when it waits.
   */
  async backingOff(
    network: string,
    backoffSeconds: number,
    now: Date,
  ): Promise<Array<{ currency: string; address: string; unswept_in_row: number; until: Date }>> {
    return this.dataSource.query(
      `SELECT currency, address, unswept_in_row, until FROM (
         SELECT currency, address, unswept_in_row,
                unswept_at + make_interval(secs => LEAST(
                  $2::float8 * power(2, LEAST(unswept_in_row, 30) - 1), $3::float8)) AS until
           FROM sweep_addresses
          WHERE network = $1 AND unswept_in_row > 0 AND unswept_at IS NOT NULL
            AND pending_since IS NOT NULL AND frozen_at IS NULL) w
        WHERE until > $4 ORDER BY until`,
      [network, backoffSeconds, MAX_RETRY_BACKOFF_SECONDS, now],
    );
  }

  /**
   * TRON: whether the address's sweep waits for a read of its TRX (set once, with the time it
   * started waiting; cleared by a read that proved it).
   */
  async markTrxReadWaiting(
    network: string,
    currency: string,
    address: string,
    waiting: boolean,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE sweep_addresses
          SET trx_read_waiting_since = CASE WHEN $4 THEN COALESCE(trx_read_waiting_since, now())
                                            ELSE NULL END,
              updated_at = now()
        WHERE network = $1 AND currency = $2 AND address = $3
          AND (trx_read_waiting_since IS NULL) = $4`,
      [network, currency, address, waiting],
    );
  }

  /** Pending addresses whose sweep waits for a read of their TRX (treasury:status, the gauge). */
  async waitingForTrxRead(
    network?: string,
  ): Promise<Array<{ network: string; currency: string; address: string; since: Date }>> {
    return this.dataSource.query(
      `SELECT network, currency, address, trx_read_waiting_since AS since FROM sweep_addresses
        WHERE trx_read_waiting_since IS NOT NULL AND pending_since IS NOT NULL
          AND frozen_at IS NULL AND ($1::text IS NULL OR network = $1)
        ORDER BY trx_read_waiting_since`,
      [network ?? null],
    );
  }

  /** Addresses a token refused to move from: reported, not retried until treasury:unfreeze. */
  async frozen(
    network?: string,
  ): Promise<Array<{ network: string; currency: string; address: string; frozen_at: Date }>> {
    return this.dataSource.query(
      `SELECT network, currency, address, frozen_at FROM sweep_addresses
        WHERE frozen_at IS NOT NULL AND ($1::text IS NULL OR network = $1) ORDER BY frozen_at`,
      [network ?? null],
    );
  }
}

interface PendingRow {
  address: string;
  derivation_index: number;
  pending_since: Date;
  pending_block: string;
}

function toPending(row: PendingRow): PendingDepositAddress {
  return {
    address: row.address,
    derivationIndex: row.derivation_index,
    pendingSince: new Date(row.pending_since),
    pendingBlock: Number(row.pending_block),
  };
}
