import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { APP_CONFIG, AppConfig, configureListTotals } from '@app/common';
import { buildDataSourceOptions } from './data-source-options';
import { trackLostConnections } from './lost-connections';

function typeOrmRoot(api: boolean): DynamicModule {
  return TypeOrmModule.forRootAsync({
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => {
      // Exact list totals are counted under their own, tighter limit (list-total-timeout.ts).
      // Never above the statement limit itself (0 is "none" for either).
      if (api) {
        const limits = [config.databaseListTotalTimeoutMs, config.databaseStatementTimeoutMs];
        const set = limits.filter((limit) => limit > 0);
        configureListTotals({ timeoutMs: set.length ? Math.min(...set) : 0 });
      }
      return {
        ...buildDataSourceOptions({
          url: config.databaseUrl,
          poolSize: config.databasePoolSize,
          ...(api
            ? {
                statementTimeoutMs: config.databaseStatementTimeoutMs,
                idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
                connectTimeoutMs: config.databaseConnectTimeoutMs,
              }
            : {}),
        }),
        autoLoadEntities: true,
      };
    },
    // A transaction whose connection PostgreSQL ended fails as an outage, not as a bug.
    dataSourceFactory: async (options?: DataSourceOptions) =>
      trackLostConnections(await new DataSource(options!).initialize()),
  });
}

/**
 * The one PostgreSQL connection pool of a process; entities register themselves per module.
 * No statement, idle-in-transaction or pool-wait limit: the worker's and the CLI's statements are
 * batches no client waits for, whose cancellation would only repeat the same work, and a worker
 * under load may rightly queue for a connection (docs/operations.md).
 */
@Module({ imports: [typeOrmRoot(false)] })
export class DatabaseModule {}

/**
 * The API's pool: each statement is bounded by DATABASE_STATEMENT_TIMEOUT_MS, a transaction left
 * idle by DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS and the wait for a connection by
 * DATABASE_CONNECT_TIMEOUT_MS, so one request cannot hold a connection and the database
 * indefinitely; the request answers 503.
 */
@Module({ imports: [typeOrmRoot(true)] })
export class ApiDatabaseModule {}
