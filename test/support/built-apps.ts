import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..');

/** The compiled entry point of an app, as production runs it (`npm run build`). */
export function mainOf(app: 'api' | 'worker'): string {
  return join(ROOT, `dist/apps/${app}/apps/${app}/src/main.js`);
}

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (!entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function builtMs(app: 'api' | 'worker'): number {
  try {
    return statSync(mainOf(app)).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Runs `nest build <app>` unless its output is newer than every source it compiles, so suites
 * that spawn the real processes build once per change, not once each. Suites in other Jest
 * workers (or runs) wait for a build under way instead of writing the same files beside it.
 */
export async function buildApp(app: 'api' | 'worker'): Promise<void> {
  if (isBuilt(app)) return;
  const lock = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await lock.connect();
  try {
    // The lock goes with the connection, so a killed suite never leaves it taken.
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`payments-build-${app}`]);
    if (isBuilt(app)) return;
    await promisify(execFile)(
      process.execPath,
      [require.resolve('@nestjs/cli/bin/nest.js'), 'build', app],
      { cwd: ROOT },
    );
  } finally {
    await lock.end();
  }
}

function isBuilt(app: 'api' | 'worker'): boolean {
  const sources = Math.max(
    newestSourceMs(join(ROOT, 'apps', app, 'src')),
    newestSourceMs(join(ROOT, 'libs')),
    ...['tsconfig.json', 'nest-cli.json'].map((file) => statSync(join(ROOT, file)).mtimeMs),
  );
  return builtMs(app) > sources;
}
