import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './data-source-options';

// Any fixed number; every process that migrates takes this lock so two never run at once.
const MIGRATION_LOCK_KEY = 74201;

/** Creates the database when it does not exist yet (fresh machines), then applies pending migrations. */
export async function migrateDatabase(url: string): Promise<string[]> {
  await ensureDatabaseExists(url);
  const dataSource = new DataSource(buildDataSourceOptions({ url, poolSize: 2 }));
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
        .catch((error: { code?: string }) => {
          // Another process created it between our check and our CREATE.
          if (error.code !== '42P04' && error.code !== '23505') throw error;
        });
    }
  } finally {
    await client.end();
  }
}

/** Drops the database of this URL, closing its connections (test and benchmark resets). */
export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
