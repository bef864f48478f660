import Redis from 'ioredis';
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import { RunSlot, takeRunSlot } from './run-slot';
import { testDatabaseUrl, testRedisUrl } from './test-database';

declare global {
  var testRunSlot: RunSlot | undefined;
}

/**
 * Takes this run's database and Redis database (unless TEST_DATABASE_URL or TEST_REDIS_URL name
 * them), recreates the database from migrations and empties the Redis database, once per run.
 * The environment it sets reaches every suite (they run in this process or in workers it starts).
 */
export default async function globalSetup(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL && !process.env.TEST_REDIS_URL) {
    const slot = await takeRunSlot();
    globalThis.testRunSlot = slot;
    process.env.TEST_DATABASE_URL = slot.databaseUrl;
    process.env.TEST_REDIS_URL = slot.redisUrl;
  }
  await dropDatabase(testDatabaseUrl());
  await migrateDatabase(testDatabaseUrl());
  const redis = new Redis(testRedisUrl());
  await redis.flushdb();
  redis.disconnect();
}
