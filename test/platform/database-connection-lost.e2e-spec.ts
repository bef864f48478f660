import { DataSource, EntityManager } from 'typeorm';
import { isDatabaseUnavailable } from '@app/common/errors/database-unavailable';
import { buildDataSourceOptions, queryPrepared, trackLostConnections } from '@app/database';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';

type Statement = (manager: EntityManager) => Promise<unknown>;

/**
 * Starts a transaction, has PostgreSQL end its session while it sits between two statements (as a
 * restart or a stop does), waits until the client has heard it, then runs the next statement.
 * Returns what that statement threw.
 */
async function nextStatementAfterTermination(
  dataSource: DataSource,
  next: Statement,
): Promise<unknown> {
  return dataSource
    .transaction(async (manager) => {
      const [{ pid }]: Array<{ pid: number }> = await manager.query(
        'SELECT pg_backend_pid() AS pid',
      );
      await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(async () => manager.queryRunner!.isReleased, 30_000, 'the client told');
      await next(manager);
    })
    .then(
      () => new Error('the statement after the termination succeeded'),
      (error: unknown) => error,
    );
}

const NEXT_STATEMENTS: Array<[string, Statement]> = [
  ['manager.query', (manager) => manager.query('SELECT 1')],
  [
    'a query builder',
    (manager) =>
      manager.createQueryBuilder().select('d.datname').from('pg_database', 'd').getRawMany(),
  ],
  ['queryPrepared', (manager) => queryPrepared(manager, 'SELECT 1 AS one', [])],
];

/**
 * PostgreSQL ending a transaction's session between two of its statements is an outage (503, the
 * worker retries), not a bug (500). TypeORM releases the runner on pg's 'error' event and its next
 * statement fails with an error of no code and no cause; seen in the chaos soak as a 500 during a
 * PostgreSQL stop. A manager used after its own transaction ended stays a bug.
 */
describe('A transaction whose connection PostgreSQL ended', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = trackLostConnections(
      await new DataSource(
        buildDataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 3 }),
      ).initialize(),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it.each(NEXT_STATEMENTS)('fails %s as the database being unavailable', async (_, next) => {
    const failed = await nextStatementAfterTermination(dataSource, next);
    expect(failed).toMatchObject({ name: 'DatabaseConnectionLostError' });
    expect(isDatabaseUnavailable(failed)).toBe(true);
    // The cause is PostgreSQL's own: 57P01, terminated by an administrator.
    expect((failed as Error).cause).toMatchObject({ code: '57P01' });
  });

  it('leaves the pool working', async () => {
    await nextStatementAfterTermination(dataSource, (manager) => manager.query('SELECT 1'));
    const rows: Array<{ ok: number }> = await dataSource.query('SELECT 1 AS ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });

  it('still fails a manager used after its own transaction ended as a bug', async () => {
    let kept: EntityManager | undefined;
    await dataSource.transaction(async (manager) => {
      kept = manager;
    });
    const failed = await kept!.query('SELECT 1').then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ name: 'QueryRunnerProviderAlreadyReleasedError' });
    expect(isDatabaseUnavailable(failed)).toBe(false);
  });

  it("is how the API's own data source reports it", async () => {
    const api = await TestApi.start();
    try {
      const failed = await nextStatementAfterTermination(api.dataSource, (manager) =>
        manager.query('SELECT 1'),
      );
      expect(isDatabaseUnavailable(failed)).toBe(true);
    } finally {
      await api.close();
    }
  });
});
