import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import { ASSET_ACCOUNT_KINDS, LedgerAccounts } from '@app/ledger';
import { whileAdvisoryLocked } from '@app/database';

/** An address the service controls besides deposit addresses, and what it is. */
export interface ControlledWallet {
  role: 'hot_wallet' | 'sweeper' | 'treasury';
  address: string;
}

/** Where the previous run of a network stood: what an incremental run reads again from. */
export interface RunWatermark {
  block: number;
  startedAt: Date;
}

/** Where units sit: deposit addresses, or the wallet of a role (its books: sweeper + staking). */
export type BooksLocation = 'deposits' | 'hot_wallet' | 'treasury' | 'sweeper';

export interface StoredSum {
  currency: string;
  location: BooksLocation;
  sum: bigint;
  addresses: number;
}

/** One location's part of a stored run (whole units, exact decimal strings). */
export interface LocationRun {
  location: BooksLocation;
  onchain: string;
  books: string;
  difference: string;
  addresses: number;
}

/** A run's differences, total and per location (non-zero only), comparable as one string. */
export type DifferenceSignature = string;

export function signatureOf(difference: string, locations: LocationRun[]): DifferenceSignature {
  const differing = locations
    .filter((location) => !new Decimal(location.difference).isZero())
    .map((location) => `${location.location}=${new Decimal(location.difference).toFixed()}`)
    .sort();
  return [new Decimal(difference).toFixed(), ...differing].join(' ');
}

/** The alert: the same differences as the run before, and not all zero. */
export function persists(latest: DifferenceSignature, before: DifferenceSignature): boolean {
  return latest !== '0' && latest === before;
}

/** The latest run of a (network, currency), as the alert and the gauge see it. */
export interface LatestDifference {
  network: string;
  currency: string;
  difference: string;
  /** Each location the run compared, with its difference (whole units, exact). */
  locations: Array<{ location: BooksLocation; difference: string }>;
  persistent: boolean;
}

export interface StoredRun {
  network: string;
  currency: string;
  block: number;
  onchain: string;
  books: string;
  difference: string;
  addresses: number;
  mode: 'full' | 'incremental';
  pending: string[];
  locations: LocationRun[];
  startedAt: Date;
}

/** Balances read, as columns: the i-th balance (base units) is the i-th address's currency. */
export interface ReadBalances {
  currencies: string[];
  addresses: string[];
  balances: string[];
}

/** The queries of reconciliation, each one round trip. */
@Injectable()
export class ReconciliationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Networks with anything to reconcile: a registered wallet, or an asset in the books. */
  async networksWithHoldings(): Promise<string[]> {
    const rows: Array<{ network: string }> = await this.dataSource.query(
      `SELECT network FROM hot_wallets UNION SELECT network FROM treasury_wallets
        UNION SELECT DISTINCT network FROM ledger_balances WHERE kind = ANY($1::text[])
        ORDER BY network`,
      [ASSET_ACCOUNT_KINDS],
    );
    return rows.map((row) => row.network);
  }

  /**
   * Every address ever registered for a wallet role on the network (wallet_addresses, filled by
   * triggers on hot_wallets and treasury_wallets): a rotation replaces the current row, but the
   * old address keeps whatever the books still say it holds, so it is read for as long as it is
   * listed (for good: an address a few rotations leave behind costs one read each).
   */
  async wallets(network: string): Promise<ControlledWallet[]> {
    return this.dataSource.query(
      `SELECT role, address FROM wallet_addresses WHERE network = $1
        UNION SELECT 'hot_wallet', address FROM hot_wallets WHERE network = $1
        UNION SELECT role, address FROM treasury_wallets WHERE network = $1`,
      [network],
    );
  }

  /**
   * Deposit addresses with activity on the network: a session's pay address that received a
   * transfer there, or the receiver of an unmatched transfer. With `since`, only those that may
   * have moved after the previous run read them: a transfer or sweep in a later block, or one
   * recorded after that run started (the watcher may record a block's transfers late). EVM
   * addresses in lowercase, so one address is one row whatever case it was stored in.
   */
  async depositAddresses(
    network: string,
    lowercase: boolean,
    since?: RunWatermark,
  ): Promise<string[]> {
    const address = (column: string) => (lowercase ? `lower(${column})` : column);
    const moved = (alias: string) =>
      since ? `AND (${alias}.block_number > $2 OR ${alias}.updated_at >= $3)` : '';
    const sweeps = since
      ? `UNION SELECT ${address('i.address')} FROM sweep_items i JOIN sweeps s ON s.id = i.sweep_id
          WHERE s.network = $1 AND (s.status = 'Processing' OR s.block_number > $2
                                    OR s.updated_at >= $3)`
      : '';
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT ${address('c.pay_address')} AS address
         FROM session_transactions t
         JOIN checkout_sessions c ON c.id = t.session_id AND c.network = t.network
        WHERE t.network = $1 ${moved('t')}
       UNION SELECT ${address('u.to_address')} FROM unmatched_transfers u
        WHERE u.network = $1 ${moved('u')}
       ${sweeps}`,
      since ? [network, since.block, since.startedAt] : [network],
    );
    return rows.map((row) => row.address);
  }

  /** Whether the books ever held native coin on deposit addresses (gas top-up sweeps). */
  async booksNativeOnDeposits(network: string, coin: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ledger_balances WHERE account = $1`,
      [LedgerAccounts.deposits(network, coin)],
    );
    return rows.length > 0;
  }

  async lastRun(network: string): Promise<RunWatermark | null> {
    const rows: Array<{ block_number: string; started_at: Date }> = await this.dataSource.query(
      `SELECT block_number, started_at FROM reconciliation_runs
        WHERE network = $1 ORDER BY id DESC LIMIT 1`,
      [network],
    );
    return rows.length
      ? { block: Number(rows[0].block_number), startedAt: rows[0].started_at }
      : null;
  }

  /**
   * Stores what was read at `block`; a full run (`replaceAll`) also forgets every address it did
   * not read (no longer controlled). Returns, per currency and location, the sum of the stored
   * balances and how many addresses they are: those just read and, on an incremental run, the
   * rest as last read. An address's location is its wallet role (hot_wallet before treasury
   * before sweeper, should one address ever hold two), else `deposits`; `lowercase`: EVM
   * addresses are stored in lowercase.
   *
   * Set-based, whatever the number of addresses: one statement writes only the balances that
   * changed (a row keeps the block it was first read at with its balance: most of 10,000 deposit
   * addresses read 0 run after run, and rewriting them all took a second), one sums. The run
   * holds the network's lock, so nothing else writes these rows between the two.
   */
  async storeAndSum(
    network: string,
    block: number,
    balances: ReadBalances,
    replaceAll: boolean,
    lowercase: boolean,
  ): Promise<StoredSum[]> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `WITH r AS (
           SELECT * FROM unnest($2::text[], $3::text[], $4::numeric[]) AS r(currency, address, balance)
         ), forgotten AS (
           DELETE FROM reconciliation_balances b
            WHERE $6 AND b.network = $1
              AND NOT EXISTS (SELECT 1 FROM r WHERE r.currency = b.currency AND r.address = b.address)
         )
         INSERT INTO reconciliation_balances (network, currency, address, balance, block_number)
         SELECT $1, r.currency, r.address, r.balance, $5
           FROM r LEFT JOIN reconciliation_balances b
             ON b.network = $1 AND b.currency = r.currency AND b.address = r.address
          WHERE b.balance IS DISTINCT FROM r.balance
         ON CONFLICT (network, currency, address) DO UPDATE
           SET balance = EXCLUDED.balance, block_number = EXCLUDED.block_number,
               updated_at = now()`,
        [network, balances.currencies, balances.addresses, balances.balances, block, replaceAll],
      );
      const rows: Array<{
        currency: string;
        location: BooksLocation;
        sum: string;
        addresses: number;
      }> = await manager.query(
        `SELECT b.currency, coalesce(w.location, 'deposits') AS location,
                sum(b.balance)::text AS sum, count(*)::int AS addresses
           FROM reconciliation_balances b
           LEFT JOIN (
             SELECT DISTINCT ON (1) CASE WHEN $2 THEN lower(address) ELSE address END AS address,
                    role AS location
               FROM wallet_addresses WHERE network = $1
              ORDER BY 1, array_position(ARRAY['hot_wallet', 'treasury', 'sweeper'], role)
           ) w ON w.address = b.address
          WHERE b.network = $1
          GROUP BY 1, 2`,
        [network, lowercase],
      );
      return rows.map((row) => ({ ...row, sum: BigInt(row.sum) }));
    });
  }

  /**
   * The books: per currency and location, the sum of the network's asset accounts (whole units).
   * `staking` counts at the sweeper's location: the TRON staking account is the sweeper's address
   * (registered with role sweeper), and its funding and fees may be booked to either account.
   */
  async books(
    network: string,
  ): Promise<Array<{ currency: string; location: BooksLocation; total: string }>> {
    return this.dataSource.query(
      `SELECT currency, CASE WHEN kind = 'staking' THEN 'sweeper' ELSE kind END AS location,
              sum(balance)::text AS total FROM ledger_balances
        WHERE network = $1 AND kind = ANY($2::text[]) GROUP BY 1, 2`,
      [network, ASSET_ACCOUNT_KINDS],
    );
  }

  /**
   * Transactions of our wallets signed and maybe broadcast whose outcome is not booked yet: their
   * gas may already have left a wallet on chain (the native coin's difference they explain).
   */
  async pendingTransactions(network: string): Promise<string[]> {
    const rows: Array<{ tx_hash: string }> = await this.dataSource.query(
      `SELECT a.tx_hash FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
        WHERE p.network = $1 AND p.status = 'Processing' AND a.status IN ('Signed', 'Broadcast')
       UNION SELECT a.tx_hash FROM sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id
        WHERE s.network = $1 AND s.status = 'Processing' AND a.status IN ('Signed', 'Broadcast')
       ORDER BY 1`,
      [network],
    );
    return rows.map((row) => row.tx_hash);
  }

  /**
   * The latest run's differences per currency of the network (the total's and each location's),
   * before this run is stored: the alert needs the same differences twice.
   */
  async previousDifferences(network: string): Promise<Map<string, DifferenceSignature>> {
    const rows: Array<{ currency: string; difference: string; locations: LocationRun[] }> =
      await this.dataSource.query(
        `SELECT DISTINCT ON (currency) currency, difference::text, locations FROM reconciliation_runs
          WHERE network = $1 ORDER BY currency, id DESC`,
        [network],
      );
    return new Map(rows.map((row) => [row.currency, signatureOf(row.difference, row.locations)]));
  }

  async saveRuns(runs: StoredRun[]): Promise<void> {
    if (!runs.length) return;
    await this.dataSource.query(
      `INSERT INTO reconciliation_runs (network, currency, block_number, onchain, books, difference,
         addresses, mode, pending, locations, started_at)
       SELECT r.network, r.currency, r.block, r.onchain, r.books, r.difference, r.addresses,
              r.mode, r.pending, r.locations, r.started_at
         FROM json_to_recordset($1::json) AS r(network text, currency text, block bigint,
              onchain numeric, books numeric, difference numeric, addresses int, mode text,
              pending jsonb, locations jsonb, started_at timestamptz)`,
      [JSON.stringify(runs.map(({ startedAt, ...run }) => ({ ...run, started_at: startedAt })))],
    );
  }

  /**
   * Per (network, currency) reconciled, the latest run's difference, in total and per location,
   * and whether the run before it had the same differences, total and per location, not all zero:
   * what the alert is about. A difference seen once, or one that changes from run to run, may be
   * transfers that landed between the chain's read and the books' read.
   */
  async latestDifferences(): Promise<LatestDifference[]> {
    const rows: Array<{
      network: string;
      currency: string;
      runs: Array<{ difference: string; locations: LocationRun[] }>;
    }> = await this.dataSource.query(
      `SELECT k.network, k.currency, l.runs
         FROM (SELECT DISTINCT network, currency FROM reconciliation_runs) k,
         LATERAL (SELECT json_agg(json_build_object('difference', difference::text,
                                                    'locations', locations) ORDER BY id DESC) AS runs
                    FROM (SELECT id, difference, locations FROM reconciliation_runs r
                           WHERE r.network = k.network AND r.currency = k.currency
                           ORDER BY id DESC LIMIT 2) latest) l
        ORDER BY k.network, k.currency`,
    );
    return rows.map(({ network, currency, runs: [latest, before] }) => {
      const signature = signatureOf(latest.difference, latest.locations);
      return {
        network,
        currency,
        difference: latest.difference,
        locations: latest.locations.map(({ location, difference }) => ({ location, difference })),
        persistent:
          before !== undefined &&
          persists(signature, signatureOf(before.difference, before.locations)),
      };
    });
  }

  /**
   * Runs a network's reconciliation under a lock of its own: one at a time across workers and
   * the CLI. `wait` blocks until the lock is free (the CLI); otherwise null when it is taken.
   */
  async whileLocked<T>(network: string, wait: boolean, work: () => Promise<T>): Promise<T | null> {
    const run = await whileAdvisoryLocked(
      this.dataSource,
      `treasury.reconcile:${network}`,
      wait,
      work,
    );
    return run.ran ? run.value : null;
  }
}
