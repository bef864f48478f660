import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChainFamily } from '@app/chains';
import { whileAdvisoryLocked } from '@app/database';

export interface DerivedAddress {
  derivationIndex: number;
  address: string;
}

@Injectable()
export class PayAddressesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Reserves `count` consecutive derivation indexes and returns the first. It commits on its own
   * (not in the caller's transaction) so concurrent reservations never wait on each other; an index
   * reserved by a request that later fails is simply never used.
   */
  async reserveIndexes(family: ChainFamily, fingerprint: string, count: number): Promise<number> {
    const rows: Array<{ first_index: number }> = await this.dataSource.query(
      `INSERT INTO hd_index_counters (chain_family, key_fingerprint, next_index) VALUES ($1, $2, $3)
       ON CONFLICT (chain_family, key_fingerprint)
         DO UPDATE SET next_index = hd_index_counters.next_index + EXCLUDED.next_index
       RETURNING next_index - $3 AS first_index`,
      [family, fingerprint, count],
    );
    return rows[0].first_index;
  }

  async insertUnclaimed(
    family: ChainFamily,
    fingerprint: string,
    addresses: DerivedAddress[],
  ): Promise<void> {
    if (!addresses.length) return;
    await this.dataSource.query(
      `INSERT INTO pay_addresses (chain_family, key_fingerprint, derivation_index, address)
       SELECT $1, $2, unnest($3::int[]), unnest($4::text[])`,
      [
        family,
        fingerprint,
        addresses.map((item) => item.derivationIndex),
        addresses.map((item) => item.address),
      ],
    );
  }

  /**
   * Marks up to `count` free addresses of this key above `afterIndex` as claimed and returns them,
   * lowest index first. Starting past what this process last claimed skips the index entries of
   * claimed rows that vacuum has not removed yet, which otherwise every claim would wade through.
   * Committed on its own: an address claimed by a process that dies before using it is simply never
   * used, which costs nothing; handing one address to two sessions is what must never happen.
   */
  async claimBatch(
    family: ChainFamily,
    fingerprint: string,
    count: number,
    afterIndex: number,
  ): Promise<DerivedAddress[]> {
    // Wrapped in a CTE: TypeORM returns [rows, count] for a bare UPDATE ... RETURNING.
    const rows: Array<{ derivation_index: number; address: string }> = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE pay_addresses SET claimed_at = now()
          WHERE (chain_family, key_fingerprint, derivation_index) IN (
            SELECT chain_family, key_fingerprint, derivation_index FROM pay_addresses
             WHERE chain_family = $1 AND key_fingerprint = $2 AND claimed_at IS NULL
               AND derivation_index > $4
             ORDER BY derivation_index LIMIT $3 FOR UPDATE SKIP LOCKED)
          RETURNING derivation_index, address)
       SELECT * FROM claimed ORDER BY derivation_index`,
      [family, fingerprint, count, afterIndex],
    );
    return rows.map((row) => ({ derivationIndex: row.derivation_index, address: row.address }));
  }

  /** Records an address derived on the request path as claimed. */
  async insertClaimed(
    family: ChainFamily,
    fingerprint: string,
    derived: DerivedAddress,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO pay_addresses (chain_family, key_fingerprint, derivation_index, address, claimed_at)
       VALUES ($1, $2, $3, $4, now())`,
      [family, fingerprint, derived.derivationIndex, derived.address],
    );
  }

  /**
   * Runs `work` holding a session-level advisory lock for this key's refills, or returns undefined
   * at once when another process holds it. The lock lives on a connection of its own, released
   * (with the connection) whatever `work` does; `work` uses ordinary pooled connections.
   */
  async whileRefillLocked<T>(
    family: ChainFamily,
    fingerprint: string,
    work: () => Promise<T>,
  ): Promise<T | undefined> {
    const run = await whileAdvisoryLocked(
      this.dataSource,
      `pay_addresses.refill:${family}:${fingerprint}`,
      false,
      work,
    );
    return run.ran ? run.value : undefined;
  }

  async countUnclaimed(family: ChainFamily, fingerprint: string): Promise<number> {
    const rows: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM pay_addresses
        WHERE chain_family = $1 AND key_fingerprint = $2 AND claimed_at IS NULL`,
      [family, fingerprint],
    );
    return Number(rows[0].count);
  }
}
