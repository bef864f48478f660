import { Client } from 'pg';
import { Redis } from 'ioredis';
import { dropDatabase } from '../../libs/database/src/migrate';
import { runCli } from './processes';
import { BENCH_APPLICATION_NAME } from './sessions';
import { environment, Target } from './settings';

/** The orchestrator's own connection: named, so the session sampler leaves it out. */
export async function connectDatabase(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: BENCH_APPLICATION_NAME });
  await client.connect();
  return client;
}

/** Drops and recreates a benchmark's database, migrated by the built CLI run with `env`. */
export async function resetDatabase(url: string, env: NodeJS.ProcessEnv): Promise<void> {
  await dropDatabase(url);
  runCli(['db:migrate'], env);
}

/** Empties one Redis database (the benchmark's queues only; other databases are not touched). */
export async function flushRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

/** A fresh target: database dropped, created and migrated, Redis flushed; then connected. */
export async function freshTarget(
  target: Target,
  step: (message: string) => void,
  env = environment(target),
): Promise<Client> {
  step(`database ${target.database}: drop, create, migrate; Redis ${target.redisUrl}: flush`);
  await resetDatabase(target.databaseUrl, env);
  await flushRedis(target.redisUrl);
  return connectDatabase(target.databaseUrl);
}

export async function postgresVersion(db: Client): Promise<string> {
  const { rows } = await db.query<{ server_version: string }>('SHOW server_version');
  return rows[0].server_version;
}

export interface Merchant {
  id: string;
  apiKey: string;
}

/** A merchant created by the operator CLI, as an operator does: its API key is the CLI's. */
export function createMerchant(env: NodeJS.ProcessEnv, name: string): Merchant {
  const created = runCli<{ merchant_id: string; api_key: string }>(
    ['merchants:create', '--name', name],
    env,
  );
  return { id: created.merchant_id, apiKey: created.api_key };
}

/** Same starting conditions for every phase: no dead tuples, fresh statistics, no checkpoint due. */
export async function settle(db: Client, tables = ''): Promise<void> {
  await db.query(`VACUUM ANALYZE ${tables}`);
  await db.query('CHECKPOINT');
}

/**
 * A seeded database kept between runs (seeding a million rows takes minutes): with `reuse`, the
 * seed of an earlier run with the same `size` is kept (migrated to this checkout); else the target
 * is made afresh and `seed` writes it, then records what it returns beside the rows.
 */
export async function seededTarget<T>(
  target: Target,
  env: NodeJS.ProcessEnv,
  options: { size: number; reuse: boolean; step: (message: string) => void },
  seed: (db: Client) => Promise<T>,
): Promise<T> {
  const { size, step } = options;
  if (options.reuse) {
    const earlier = await connectDatabase(target.databaseUrl)
      .then(async (db) => {
        const { rows } = await db
          .query<{ value: T }>(`SELECT value FROM bench_seed WHERE size = $1`, [size])
          .finally(() => db.end());
        return rows[0]?.value ?? null;
      })
      .catch(() => null);
    if (earlier) {
      step(`--reuse: the seed of an earlier run (${size.toLocaleString('en-US')}); migrating`);
      runCli(['db:migrate'], env);
      return earlier;
    }
  }
  const db = await freshTarget(target, step, env);
  try {
    const value = await seed(db);
    // As autovacuum leaves the tables: statistics and visibility map.
    step('VACUUM ANALYZE');
    await db.query('VACUUM ANALYZE');
    await db.query(`CREATE TABLE bench_seed (size int, value json)`);
    await db.query(`INSERT INTO bench_seed VALUES ($1, $2)`, [size, JSON.stringify(value)]);
    return value;
  } finally {
    await db.end();
  }
}
