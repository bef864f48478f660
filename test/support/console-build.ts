import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..');
const CONSOLE_SOURCES = join(ROOT, 'apps', 'console');
const BUILT_INDEX = join(ROOT, 'dist', 'console', 'index.html');
// Sources outside apps/console that the console bundles.
const SHARED_SOURCES = [join(ROOT, 'libs', 'auth', 'src', 'permissions.ts')];

function newestMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMs(join(path, entry)));
  return newest;
}

function isBuilt(): boolean {
  let builtMs: number;
  try {
    builtMs = statSync(BUILT_INDEX).mtimeMs;
  } catch {
    return false;
  }
  return builtMs > Math.max(newestMs(CONSOLE_SOURCES), ...SHARED_SOURCES.map(newestMs));
}

/**
 * Runs `npm run console:build` (Vite) unless dist/console is newer than every console source, so
 * `npm test` on a fresh clone serves the real app. Suites in other Jest workers wait for a build
 * under way rather than emptying dist/console beside it.
 */
export async function buildConsole(): Promise<void> {
  if (isBuilt()) return;
  const lock = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await lock.connect();
  try {
    // The lock goes with the connection, so a killed suite never leaves it taken.
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', ['payments-build-console']);
    if (isBuilt()) return;
    await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        '--config',
        join(CONSOLE_SOURCES, 'vite.config.mts'),
        '--logLevel',
        'warn',
      ],
      // Jest sets NODE_ENV=test, which would bundle React's development build.
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' } },
    );
  } finally {
    await lock.end();
  }
}
