import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { buildDataSourceOptions } from './data-source-options';

function typeOrmRoot(withStatementTimeout: boolean): DynamicModule {
  return TypeOrmModule.forRootAsync({
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => ({
      ...buildDataSourceOptions({
        url: config.databaseUrl,
        poolSize: config.databasePoolSize,
        statementTimeoutMs: withStatementTimeout ? config.databaseStatementTimeoutMs : undefined,
      }),
      autoLoadEntities: true,
    }),
  });
}

/**
 * The one PostgreSQL connection pool of a process; entities register themselves per module.
 * No statement timeout: the worker's and the CLI's statements are batches no client waits for,
 * whose cancellation would only repeat the same work (docs/operations.md).
 */
@Module({ imports: [typeOrmRoot(false)] })
export class DatabaseModule {}

/**
 * The API's pool: each statement is bounded by DATABASE_STATEMENT_TIMEOUT_MS, so one request
 * cannot hold a connection and the database indefinitely; the request answers 503.
 */
@Module({ imports: [typeOrmRoot(true)] })
export class ApiDatabaseModule {}
