import Redis from 'ioredis';
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database';

/** Recreates the test database from migrations and empties the test Redis, once per test run. */
export default async function globalSetup(): Promise<void> {
  await dropDatabase(TEST_DATABASE_URL);
  await migrateDatabase(TEST_DATABASE_URL);
  const redis = new Redis(TEST_REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
}
