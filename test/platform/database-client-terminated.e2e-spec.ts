import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { buildDataSourceOptions } from '@app/database';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

/**
 * A connection PostgreSQL ends while a request holds it between statements (a restart, an
 * operator's pg_terminate_backend): pg emits 'error' on that client, and pg's pool listens only
 * to idle clients. Unheard, the event would throw out of the socket handler and end the process
 * (seen once in CI's faults-postgres suite). Heard, the next query on it fails and the pool drops
 * it on release.
 */
describe('PostgreSQL client ended while checked out', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(
      buildDataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 2 }),
    ).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('fails the holder’s next query instead of the process, and the pool recovers', async () => {
    // Straight from the pool, as PreparedStatements and any future caller may hold one: no
    // listener of the caller's own (TypeORM's QueryRunner adds one; nothing else does).
    const pool = (dataSource.driver as PostgresDriver).master as Pool;
    const client = await pool.connect();
    const {
      rows: [{ pid }],
    } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(
      async () =>
        (
          await dataSource.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [
            pid,
          ])
        )[0].n === 0,
      30_000,
      'the backend gone',
    );

    const failed = await client.query('SELECT 1').then(
      () => null,
      (error: Error) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    client.release(failed ?? undefined);
    const rows: Array<{ ok: number }> = await dataSource.query('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });
});
