import { DataSource } from 'typeorm';
import { DEFAULT_DATABASE_URL } from './libs/common/src/config/app-config';
import { buildDataSourceOptions } from './libs/database/src/data-source-options';

/**
 * The DataSource of the TypeORM CLI, for an operator migrating by hand (the apps and `cli
 * db:migrate` use migrateDatabase): `npm run migration:run`, `npm run migration:revert` (the last
 * applied migration) and `npm run migration:show`, each on DATABASE_URL, one transaction per
 * migration (see buildDataSourceOptions). test/platform/migration-cli.e2e-spec.ts runs them on an empty
 * database.
 *
 * No `migration:generate`: the schema is the migrations' hand-written SQL (CHECK constraints,
 * partial indexes, triggers), which the entities do not describe, so a generated migration would
 * drop most of it. Write a migration by hand and list it in libs/database/src/migrations/index.ts.
 */
export default new DataSource(
  buildDataSourceOptions({ url: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL }),
);
