import Redis from 'ioredis';
import { Client } from 'pg';
import { migrateDatabase } from '../../libs/database/src/migrate';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-database';

/** Recreates the test database from migrations and empties the test Redis, once per test run. */
export default async function globalSetup(): Promise<void> {
  const target = new URL(TEST_DATABASE_URL);
  const name = target.pathname.slice(1);
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  await migrateDatabase(TEST_DATABASE_URL);
  const redis = new Redis(TEST_REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
}
