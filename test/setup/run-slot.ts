import { Client } from 'pg';

const ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
// Redis databases a test run may take, in order. 0 is a developer's own; the benchmarks use 8,
// 12 and 13 (bench/*/settings.ts).
const REDIS_DATABASES = [15, 14, 11, 10, 9, 7, 6, 5, 4, 3, 2, 1];
const LOCK_NAMESPACE = 'payments-test-run';

export interface RunSlot {
  databaseUrl: string;
  redisUrl: string;
}

export interface RunSlots {
  /** One slot per Jest worker: worker n uses slots[n - 1]. */
  slots: RunSlot[];
  /** Gives the slots' advisory locks back (they also go when this process dies). */
  release: () => Promise<void>;
}

/**
 * `count` test databases and Redis databases no other run on this host is using: the first
 * slots whose PostgreSQL advisory locks this run can take. The locks live on a connection held
 * for the whole run, so a run that is killed frees its slots at once. Slot 15 keeps the historical
 * names (payments_test, Redis 15); others are payments_test_<n> with Redis database n.
 */
export async function takeRunSlots(count: number): Promise<RunSlots> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  const slots: RunSlot[] = [];
  for (const slot of REDIS_DATABASES) {
    if (slots.length === count) break;
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1), $2) AS locked',
      [LOCK_NAMESPACE, slot],
    );
    if (!rows[0].locked) continue;
    const database = slot === 15 ? 'payments_test' : `payments_test_${slot}`;
    slots.push({
      databaseUrl: `postgres://postgres@127.0.0.1:5432/${database}`,
      redisUrl: `redis://127.0.0.1:6379/${slot}`,
    });
  }
  if (slots.length < count) {
    await client.end();
    throw new Error(
      `Only ${slots.length} of ${count} test slots are free: other runs on this host hold the rest ` +
        `of ${REDIS_DATABASES.length}.`,
    );
  }
  return { slots, release: () => client.end() };
}
