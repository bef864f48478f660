import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS } from '@app/database/migrations';
import { dropDatabase, ensureDatabaseExists } from '@app/database/migrate';
import { TEST_DATABASE_URL } from '../setup/test-database';

const ROOT = join(__dirname, '..', '..');
// ts-node type-checks ormconfig.ts and every migration before the CLI starts: seconds apiece on a
// slow shared machine.
const NPM_TIMEOUT_MS = 180_000;

interface NpmResult {
  code: number | null;
  output: string;
}

function npmRun(script: string, databaseUrl: string): Promise<NpmResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', script],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        timeout: NPM_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/**
 * The TypeORM CLI's commands of package.json (ormconfig.ts), on a database of their own created
 * empty here: the apps migrate through migrateDatabase, but an operator may run these by hand.
 */
describe('npm run migration:run, migration:revert, migration:show (TypeORM CLI)', () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/payments_migration_cli_${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = url.toString();

  const appliedMigrations = async (): Promise<string[]> => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        `SELECT name FROM schema_migrations ORDER BY timestamp`,
      );
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await ensureDatabaseExists(databaseUrl);
  });

  afterAll(async () => {
    await dropDatabase(databaseUrl);
  });

  it('applies every migration to an empty database, reverts the last one and shows it pending', async () => {
    const names = MIGRATIONS.map((migration) => migration.name);

    const run = await npmRun('migration:run', databaseUrl);
    expect({ code: run.code, error: run.code === 0 ? '' : run.output }).toEqual({
      code: 0,
      error: '',
    });
    expect(await appliedMigrations()).toEqual(names);

    const revert = await npmRun('migration:revert', databaseUrl);
    expect({ code: revert.code, error: revert.code === 0 ? '' : revert.output }).toEqual({
      code: 0,
      error: '',
    });
    expect(await appliedMigrations()).toEqual(names.slice(0, -1));

    const show = await npmRun('migration:show', databaseUrl);
    expect(show.code).toBe(0);
    expect(show.output).toContain(`[X] ${names.length - 1} ${names.at(-2)}`);
    expect(show.output).toContain(`[ ] ${names.at(-1)}`);

    // And forward again: the last migration's down left what its up expects.
    expect((await npmRun('migration:run', databaseUrl)).code).toBe(0);
    expect(await appliedMigrations()).toEqual(names);
  });
});
