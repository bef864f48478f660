import { DataSource, EntityManager } from 'typeorm';
import { buildDataSourceOptions, queryPrepared } from '@app/database';
import { TEST_DATABASE_URL } from '../setup/test-database';

/**
 * queryPrepared runs in the caller's transaction, on its connection. A manager kept past its
 * transaction's end must not quietly fall back to the pool (review r6, L5): the statement would
 * commit on its own, outside the atomic step it belonged to.
 */
describe('queryPrepared', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(
      buildDataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 2 }),
    ).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it("runs on the transaction's own connection", async () => {
    const [inside, outside] = await dataSource.transaction(async (manager) => {
      const rows = await queryPrepared<{ pid: number }>(
        manager,
        'SELECT pg_backend_pid() AS pid',
        [],
      );
      const [own]: Array<{ pid: number }> = await manager.query('SELECT pg_backend_pid() AS pid');
      return [rows[0].pid, own.pid];
    });
    expect(inside).toBe(outside);
  });

  it('refuses a manager whose transaction has ended', async () => {
    let kept: EntityManager | undefined;
    await dataSource.transaction(async (manager) => {
      kept = manager;
    });
    await expect(queryPrepared(kept!, 'SELECT 1 AS one', [])).rejects.toThrow(
      'transaction of this EntityManager has already ended',
    );
  });

  it("runs on the pool for the data source's own manager", async () => {
    const rows = await queryPrepared<{ one: number }>(dataSource.manager, 'SELECT 1 AS one', []);
    expect(rows).toEqual([{ one: 1 }]);
  });
});
