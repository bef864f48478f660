import { DataSourceOptions } from 'typeorm';
import { CallbackQueryClient } from './callback-query-client';
import { MIGRATIONS } from './migrations';

export interface DatabaseSettings {
  url: string;
  poolSize?: number;
  /** Cancels a statement running longer (SQLSTATE 57014); none when unset or 0. */
  statementTimeoutMs?: number;
  /** Closes a connection left idle inside a transaction this long (its locks go); none when 0. */
  idleInTransactionTimeoutMs?: number;
  /** Longest wait for a connection (a free one of the pool, or a new one); forever when 0. */
  connectTimeoutMs?: number;
}

/** Options shared by the Nest apps, the CLI and the TypeORM migration CLI. Never `synchronize`. */
export function buildDataSourceOptions(settings: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // One transaction per migration, for every runner (the apps' migrateDatabase and the TypeORM
    // CLI alike): ListIndexes builds its indexes CONCURRENTLY, outside any transaction, and
    // TypeORM refuses such a migration under its default of one transaction for the whole run.
    migrationsTransactionMode: 'each',
    // The pool's clients run TypeORM's queries in pg's callback mode (see CallbackQueryClient).
    extra: {
      max: settings.poolSize ?? 20,
      Client: CallbackQueryClient,
      // Sent in each connection's startup message: no extra round trip per connection.
      ...(settings.statementTimeoutMs ? { statement_timeout: settings.statementTimeoutMs } : {}),
      ...(settings.idleInTransactionTimeoutMs
        ? { idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs }
        : {}),
      // pg's pool: past it, the query fails with "timeout exceeded when trying to connect", which
      // the API answers with 503 (isDatabaseUnavailable) rather than a request that hangs.
      ...(settings.connectTimeoutMs ? { connectionTimeoutMillis: settings.connectTimeoutMs } : {}),
    },
  };
}
