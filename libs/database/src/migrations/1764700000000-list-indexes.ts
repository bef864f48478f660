import { MigrationInterface, QueryRunner } from 'typeorm';

const NEWEST_FIRST = 'created_at DESC, id DESC';
const OWN = 'WHERE sub_merchant_id IS NULL';
const OF_SUB_MERCHANT = 'WHERE sub_merchant_id IS NOT NULL';

/**
 * For every list filter, an index whose order is the list's (newest first), for each of the three
 * sub-merchant scopes: `all` (merchant_id, filter, ...), `own` (the same, partial on
 * sub_merchant_id IS NULL: an IS NULL condition on an index column does not keep the order of the
 * columns after it) and `one` (sub_merchant_id, filter, ...). The first page of any filter is then
 * an index range scan that stops after the page (docs/pagination.md).
 *
 * livemode is not a column of these indexes: one deployment is one environment, so every row of
 * a database shares it and lists do not filter on it.
 */
const INDEXES: ReadonlyArray<
  readonly [name: string, table: string, columns: string, where: string]
> = [
  [
    'checkout_sessions_own_status_idx',
    'checkout_sessions',
    `merchant_id, status, ${NEWEST_FIRST}`,
    OWN,
  ],
  [
    'checkout_sessions_own_network_idx',
    'checkout_sessions',
    `merchant_id, network, ${NEWEST_FIRST}`,
    OWN,
  ],
  [
    'checkout_sessions_sub_merchant_status_idx',
    'checkout_sessions',
    `sub_merchant_id, status, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  [
    'checkout_sessions_sub_merchant_network_idx',
    'checkout_sessions',
    `sub_merchant_id, network, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  ['payouts_own_status_idx', 'payouts', `merchant_id, status, ${NEWEST_FIRST}`, OWN],
  ['payouts_own_network_idx', 'payouts', `merchant_id, network, ${NEWEST_FIRST}`, OWN],
  [
    'payouts_sub_merchant_status_idx',
    'payouts',
    `sub_merchant_id, status, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  [
    'payouts_sub_merchant_network_idx',
    'payouts',
    `sub_merchant_id, network, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  // A search by destination: one address may have been paid thousands of times.
  [
    'payouts_merchant_to_address_created_idx',
    'payouts',
    `merchant_id, lower(to_address), ${NEWEST_FIRST}`,
    '',
  ],
  ['events_merchant_own_created_idx', 'events', `merchant_id, ${NEWEST_FIRST}`, OWN],
  [
    'events_sub_merchant_created_idx',
    'events',
    `sub_merchant_id, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  ['events_merchant_type_idx', 'events', `merchant_id, type, ${NEWEST_FIRST}`, ''],
  ['events_own_type_idx', 'events', `merchant_id, type, ${NEWEST_FIRST}`, OWN],
  [
    'events_sub_merchant_type_idx',
    'events',
    `sub_merchant_id, type, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
  [
    'unmatched_transfers_own_created_idx',
    'unmatched_transfers',
    `merchant_id, ${NEWEST_FIRST}`,
    `${OWN} AND merchant_id IS NOT NULL`,
  ],
  [
    'unmatched_transfers_merchant_network_idx',
    'unmatched_transfers',
    `merchant_id, network, ${NEWEST_FIRST}`,
    'WHERE merchant_id IS NOT NULL',
  ],
  [
    'unmatched_transfers_sub_merchant_created_idx',
    'unmatched_transfers',
    `sub_merchant_id, ${NEWEST_FIRST}`,
    OF_SUB_MERCHANT,
  ],
];

// Its columns are the first two of payouts_merchant_to_address_created_idx, which replaces it.
const REPLACED = 'payouts_merchant_to_address_idx';

// The hash index is partial (tx_hash IS NOT NULL), and PostgreSQL keeps no statistics for the
// expression of a partial index: without these it guesses that 0.5 % of all payouts share a hash
// and walks the newest-first index looking for them (100 ms at 100,000 payouts, bench:lists).
const TX_HASH_STATISTICS = 'payouts_tx_hash_lower_stats';

/**
 * Built CONCURRENTLY, outside a transaction: on tables of millions of rows a plain CREATE INDEX
 * would block every session and payout write for the whole build. An index left invalid by an
 * interrupted run is dropped and built again on the next one.
 */
export class ListIndexes1764700000000 implements MigrationInterface {
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, table, columns, where] of INDEXES) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY ${name} ON ${table} (${columns}) ${where}`,
      );
    }
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${REPLACED}`);
    await queryRunner.query(
      `CREATE STATISTICS IF NOT EXISTS ${TX_HASH_STATISTICS} ON (lower(tx_hash)) FROM payouts`,
    );
    await queryRunner.query(`ANALYZE payouts`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP STATISTICS IF EXISTS ${TX_HASH_STATISTICS}`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${REPLACED} ON payouts (merchant_id, lower(to_address))`,
    );
    for (const [name] of [...INDEXES].reverse()) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    }
  }
}
