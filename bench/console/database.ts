import { Client } from 'pg';
import { dropDatabase } from '../../libs/database/src/migrate';
import { appEnvironment } from '../deposits/settings';
import { runCli } from '../deposits/processes';
import { seedSessions } from '../lists/seed';

/*
 * The console benchmark's own database and Redis database (bench:lists has Redis 9, the others
 * 1, 8, 12, 13; the tests 14 and 15): its sessions come from bench:lists' seed, one merchant.
 */
export const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/payments_bench_console';
export const REDIS_URL = 'redis://127.0.0.1:6379/10';
const SLICE = 100_000; // rows per INSERT statement, as bench:lists writes them

export const benchEnvironment = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  appEnvironment({ DATABASE_URL, REDIS_URL, ...extra });

export interface SeededMerchant {
  merchantId: string;
}

/** The merchant of an earlier run with `sessions` sessions, or null. */
export async function earlierSeed(sessions: number): Promise<SeededMerchant | null> {
  const db = new Client({ connectionString: DATABASE_URL });
  try {
    await db.connect();
    const { rows } = await db.query(
      `SELECT merchant_id FROM bench_console_seed WHERE sessions = $1`,
      [sessions],
    );
    return rows[0] ? { merchantId: rows[0].merchant_id as string } : null;
  } catch {
    return null;
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** Drops and recreates the database, migrates it and seeds `sessions` sessions of one merchant. */
export async function seedDatabase(
  sessions: number,
  step: (message: string) => void,
): Promise<SeededMerchant> {
  step(`resetting ${DATABASE_URL} and migrating it`);
  await dropDatabase(DATABASE_URL);
  runCli(['db:migrate'], benchEnvironment());
  const merchant = runCli<{ merchant_id: string }>(
    ['merchants:create', '--name', 'Console bench'],
    benchEnvironment(),
  );
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    const newest = new Date();
    for (let first = 1; first <= sessions; first += SLICE) {
      const count = Math.min(SLICE, sessions - first + 1);
      await seedSessions(db, {
        merchantId: merchant.merchant_id,
        newest,
        idPrefix: 'cs_bench_',
        first,
        count,
      });
      step(`  sessions: ${(first + count - 1).toLocaleString('en-US')}`);
    }
    // As autovacuum leaves the tables: statistics and visibility map.
    step('VACUUM ANALYZE');
    await db.query('VACUUM ANALYZE');
    await db.query(`CREATE TABLE bench_console_seed (sessions int, merchant_id text)`);
    await db.query(`INSERT INTO bench_console_seed VALUES ($1, $2)`, [
      sessions,
      merchant.merchant_id,
    ]);
  } finally {
    await db.end();
  }
  return { merchantId: merchant.merchant_id };
}
