import { Client } from 'pg';

const ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
// Redis databases a test run may take, in order. 0 is a developer's own; the benchmarks use 8,
// 12 and 13 (bench/*/settings.ts).
const REDIS_DATABASES = [15, 14, 11, 10, 9, 7, 6, 5, 4, 3, 2, 1];
const LOCK_NAMESPACE = 'payments-test-run';

export interface RunSlot {
  databaseUrl: string;
  redisUrl: string;
  /** Holds the slot's advisory lock until it is closed (or this process dies). */
  release: () => Promise<void>;
}

/**
 * A test database and Redis database no other run on this host is using: the first slot whose
 * PostgreSQL advisory lock this run can take. The lock lives on a connection held for the whole
 * run, so a run that is killed frees its slot at once. Slot 15 keeps the historical names
 * (payments_test, Redis 15); others are payments_test_<n> with Redis database n.
 */
export async function takeRunSlot(): Promise<RunSlot> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  for (const slot of REDIS_DATABASES) {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1), $2) AS locked',
      [LOCK_NAMESPACE, slot],
    );
    if (!rows[0].locked) continue;
    const database = slot === 15 ? 'payments_test' : `payments_test_${slot}`;
    return {
      databaseUrl: `postgres://postgres@127.0.0.1:5432/${database}`,
      redisUrl: `redis://127.0.0.1:6379/${slot}`,
      release: () => client.end(),
    };
  }
  await client.end();
  throw new Error(`Every test slot is taken: ${REDIS_DATABASES.length} runs at once on this host?`);
}
