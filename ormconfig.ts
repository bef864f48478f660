import { DataSource } from 'typeorm';
import { DEFAULT_DATABASE_URL } from './libs/common/src/config/app-config';
import { buildDataSourceOptions } from './libs/database/src/data-source-options';

// The DataSource the TypeORM CLI uses (`npm run migration:run`); the apps build their own from config.
export default new DataSource({
  ...buildDataSourceOptions({ url: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL }),
  entities: ['libs/*/src/**/*.entity.ts'],
});
