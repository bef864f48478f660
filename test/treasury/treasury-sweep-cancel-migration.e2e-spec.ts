import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@app/database/migrations';
import { buildDataSourceOptions } from '@app/database/data-source-options';
import { dropDatabase, ensureDatabaseExists } from '@app/database/migrate';
import { TEST_DATABASE_URL } from '../setup/test-database';

const MIGRATION = 1766330000000;

/**
 * Migration 1766330000000's down() on a database of its own, migrated up to it: the previous
 * release's unique sweeper nonce comes back (and the partial index and chain_forgotten_at go),
 * and a nonce shared by a forgotten chain's sweep and a later one refuses the revert.
 */
describe('Migration 1766330000000 (sweep cancel and backoff): down()', () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/payments_sweep_cancel_down_${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = url.toString();
  let dataSource: DataSource;

  beforeAll(async () => {
    await ensureDatabaseExists(databaseUrl);
    dataSource = new DataSource({
      ...buildDataSourceOptions({ url: databaseUrl, poolSize: 2 }),
      migrations: MIGRATIONS.filter(
        (migration) => Number(/(\d{13})$/.exec(migration.name)![1]) <= MIGRATION,
      ),
    });
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  }, 180_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await dropDatabase(databaseUrl);
  });

  const constraint = async () =>
    (
      await dataSource.query(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE conname = 'sweeps_network_sweeper_address_nonce_key'`,
      )
    ).map((row: { def: string }) => row.def);
  const partialIndex = async () =>
    (
      await dataSource.query(
        `SELECT 1 FROM pg_indexes WHERE indexname = 'sweeps_sweeper_nonce_idx'`,
      )
    ).length;
  const forgottenColumn = async () =>
    (
      await dataSource.query(
        `SELECT 1 FROM information_schema.columns
          WHERE table_name = 'sweeps' AND column_name = 'chain_forgotten_at'`,
      )
    ).length;
  const sweep = (id: string, forgotten: boolean) =>
    dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, chain_forgotten_at)
       VALUES ($1, 'ETHEREUM', 'USDT', '0xt', 6, 'hot_wallet', '0xd', '0xs', 7, 'Failed', $2)`,
      [id, forgotten ? new Date() : null],
    );

  it('refuses while a forgotten sweep shares its nonce, then restores the unique nonce constraint', async () => {
    expect(await constraint()).toEqual([]);
    expect(await partialIndex()).toBe(1);
    await sweep('sw_forgotten', true);
    await sweep('sw_new_chain', false);

    await expect(dataSource.undoLastMigration({ transaction: 'each' })).rejects.toThrow(
      /forgotten chain/,
    );
    expect(await partialIndex()).toBe(1);

    await dataSource.query(`DELETE FROM sweeps WHERE id = 'sw_forgotten'`);
    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await constraint()).toEqual(['UNIQUE (network, sweeper_address, nonce)']);
    expect(await partialIndex()).toBe(0);
    expect(await forgottenColumn()).toBe(0);
    await expect(
      dataSource.query(
        `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                             destination_address, sweeper_address, nonce, status)
         VALUES ('sw_same_nonce', 'ETHEREUM', 'USDT', '0xt', 6, 'hot_wallet', '0xd', '0xs', 7, 'Failed')`,
      ),
    ).rejects.toThrow(/sweeps_network_sweeper_address_nonce_key/);

    // And up again: down() left what up() expects.
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await constraint()).toEqual([]);
    expect(await partialIndex()).toBe(1);
  }, 180_000);
});
