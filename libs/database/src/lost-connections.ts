import { DataSource, QueryRunner, ReplicationMode } from 'typeorm';

/**
 * Thrown by a statement run on a transaction whose connection PostgreSQL ended (a restart, an
 * administrator's pg_terminate_backend, a network cut), with that connection's error as `cause`.
 * The transaction is gone with its connection: nothing of it was committed, and retrying the whole
 * request or job is safe.
 */
export class DatabaseConnectionLostError extends Error {
  constructor(cause: unknown) {
    super('The database connection of this transaction was lost', { cause });
    this.name = 'DatabaseConnectionLostError';
  }
}

// The error each runner was released with. TypeORM releases a runner at once when its pg client
// emits 'error' and drops the error; no other path passes one.
const lostWith = new WeakMap<QueryRunner, unknown>();

/** Throws DatabaseConnectionLostError when the runner was released because its connection died. */
export function throwIfConnectionLost(runner: QueryRunner | undefined): void {
  if (runner?.isReleased && lostWith.has(runner)) {
    throw new DatabaseConnectionLostError(lostWith.get(runner));
  }
}

type PostgresRunner = QueryRunner & { releasePostgresConnection(error?: unknown): Promise<void> };

/**
 * Makes the data source's transactions report a lost connection as one.
 *
 * When PostgreSQL ends a session while a transaction sits between two statements, pg reports it
 * as an 'error' event, and TypeORM's runner releases itself on that event without keeping the
 * error. The transaction's next statement then fails with QueryRunnerAlreadyReleasedError or
 * QueryRunnerProviderAlreadyReleasedError: no code, no cause, the same errors as a manager used
 * after its transaction ended (a bug), so the API answered 500 where the outage is a 503 (seen in
 * the chaos soak, 16 of 180 requests during a PostgreSQL stop). This keeps that error per runner
 * and throws it, wrapped, from the statements that follow; a runner our own code released still
 * fails as TypeORM has it.
 */
export function trackLostConnections(dataSource: DataSource): DataSource {
  const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode?: ReplicationMode) => {
    const runner = createQueryRunner(mode) as PostgresRunner;
    // Called as this.releasePostgresConnection(error) by the 'error' listener connect() adds.
    const release = runner.releasePostgresConnection.bind(runner);
    runner.releasePostgresConnection = (error?: unknown) => {
      if (error !== undefined && !runner.isReleased) lostWith.set(runner, error);
      return release(error);
    };
    const query = runner.query.bind(runner) as QueryRunner['query'];
    runner.query = ((...args: Parameters<QueryRunner['query']>) => {
      throwIfConnectionLost(runner);
      return query(...args);
    }) as QueryRunner['query'];
    return runner;
  };
  // EntityManager.query goes through here, and refuses a released runner before it is asked.
  const query = dataSource.query.bind(dataSource);
  dataSource.query = ((text: string, parameters?: unknown[], runner?: QueryRunner) => {
    throwIfConnectionLost(runner);
    return query(text, parameters, runner);
  }) as DataSource['query'];
  return dataSource;
}
