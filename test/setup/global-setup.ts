import type { Config } from '@jest/types';
import { Client } from 'pg';
import Redis from 'ioredis';
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import { RunSlots, takeRunSlots } from './run-slot';
import { testDatabaseUrl, testRedisUrl } from './test-database';

declare global {
  var testRunSlots: RunSlots | undefined;
}

/**
 * Takes a database and Redis database per Jest worker (unless TEST_DATABASE_URL or
 * TEST_REDIS_URL name one for all), recreates the first from migrations and copies it for the
 * others, and empties the Redis databases, once per run. The environment it sets reaches every
 * worker, and each worker picks its own (test-database.ts): suites running side by side never
 * see each other's rows, queues or chain resets.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_REDIS_URL) {
    await recreate([testDatabaseUrl()], [testRedisUrl()]);
    return;
  }
  const runSlots = await takeRunSlots(Math.max(1, globalConfig.maxWorkers));
  globalThis.testRunSlots = runSlots;
  const databases = runSlots.slots.map((slot) => slot.databaseUrl);
  const redises = runSlots.slots.map((slot) => slot.redisUrl);
  process.env.TEST_WORKER_DATABASE_URLS = databases.join(' ');
  process.env.TEST_WORKER_REDIS_URLS = redises.join(' ');
  await recreate(databases, redises);
}

async function recreate(databases: string[], redises: string[]): Promise<void> {
  const [first, ...others] = databases;
  await dropDatabase(first);
  await migrateDatabase(first);
  // A copy of the migrated database is much faster than migrating again.
  for (const other of others) await copyDatabase(first, other);
  for (const url of redises) {
    const redis = new Redis(url);
    await redis.flushdb();
    redis.disconnect();
  }
}

async function copyDatabase(templateUrl: string, url: string): Promise<void> {
  await dropDatabase(url);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  const name = (target: string) => `"${new URL(target).pathname.slice(1).replace(/"/g, '""')}"`;
  try {
    await client.query(`CREATE DATABASE ${name(url)} TEMPLATE ${name(templateUrl)}`);
  } finally {
    await client.end();
  }
}
