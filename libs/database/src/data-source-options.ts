import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

export interface DatabaseSettings {
  url: string;
  poolSize?: number;
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
    extra: { max: settings.poolSize ?? 20 },
  };
}
