import { DataSourceOptions } from 'typeorm';
import { CallbackQueryClient } from './callback-query-client';
import { MIGRATIONS } from './migrations';

export interface DatabaseSettings {
  url: string;
  poolSize?: number;
  /** Cancels a statement running longer (SQLSTATE 57014); none when unset or 0. */
  statementTimeoutMs?: number;
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
    },
  };
}
