import { execFile } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..');
// Where a command is given up on, not a speed requirement: at a load of 13 (CI beside other test
// runs) commands that take seconds alone were killed at 60 s.
const CLI_TIMEOUT_MS = 240_000;
// The build alone takes about a minute on a loaded 2-core machine (other suites running).
const BUILD_TIMEOUT_MS = 300_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeout = CLI_TIMEOUT_MS,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The operator CLI as its own process, built fresh for one suite (dist/ is git-ignored) the way
 * `npm run build` does it, without type checking (that is `npx tsc`'s job). It runs on this test
 * run's database and Redis, with the environment of the calling process (NETWORKS_FILE too).
 */
export class CliProcess {
  private constructor(
    private readonly build: string,
    /** A build other suites use too: never removed by one of them. */
    private readonly shared = false,
  ) {}

  /**
   * The CLI built once for every suite that runs it, until a source it compiles changes (the
   * build is a minute of a loaded 2-core machine; six suites each built their own). The output
   * directory is named by the newest source's time, so a run never sees files a build for newer
   * sources is writing: that build goes to a directory of its own and is renamed into place.
   * Suites in other Jest workers or runs wait for a build of the same sources under way instead
   * of repeating it.
   */
  static async shared(): Promise<CliProcess> {
    const stamp = Math.floor(newestCliSourceMs());
    const build = join(ROOT, 'dist', `cli-e2e-shared-${stamp}`);
    const main = join(build, 'apps/cli/src/main.js');
    if (existsSync(main)) return new CliProcess(build, true);
    const lock = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await lock.connect();
    try {
      // The lock goes with the connection, so a killed suite never leaves it taken.
      // Per sources' time: runs that need the same build wait for one; a newer one is never
      // held up behind a build of older sources (while files are being edited).
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [
        `payments-build-cli-e2e-${stamp}`,
      ]);
      if (existsSync(main)) return new CliProcess(build, true);
      const partial = `${build}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      await compileCli(partial);
      renameSync(partial, build);
      removeOldSharedBuilds(build);
      return new CliProcess(build, true);
    } finally {
      await lock.end();
    }
  }

  static async build(name: string): Promise<CliProcess> {
    const build = join(ROOT, 'dist', `cli-e2e-${name}-${process.pid}`);
    await compileCli(build);
    return new CliProcess(build);
  }

  run(...args: string[]): Promise<CliResult> {
    return this.runWithEnv({}, ...args);
  }

  /** As run(), with these environment variables on top (a Redis URL pointing nowhere). */
  runWithEnv(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
    return run(
      ['-r', 'tsconfig-paths/register', join(this.build, 'apps/cli/src/main.js'), ...args],
      { TS_NODE_BASEURL: this.build, LOG_LEVEL: 'silent', ...env },
    );
  }

  remove(): void {
    if (this.shared) return;
    rmSync(this.build, { recursive: true, force: true });
  }
}

async function compileCli(outDir: string): Promise<void> {
  const result = await run(
    [
      require.resolve('typescript/bin/tsc'),
      ...['-p', 'apps/cli/tsconfig.app.json', '--noCheck', '--sourceMap', 'false'],
      ...['--outDir', outDir],
    ],
    {},
    BUILD_TIMEOUT_MS,
  );
  if (result.code !== 0) throw new Error(`CLI build failed: ${result.stdout}${result.stderr}`);
}

/** The newest time a file the CLI compiles was written (its sources, the libraries, tsconfig). */
function newestCliSourceMs(): number {
  const newest = (path: string): number => {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    let latest = stat.mtimeMs;
    for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
    return latest;
  };
  return Math.max(
    ...['apps/cli/src', 'libs', 'tsconfig.json', 'apps/cli/tsconfig.app.json'].map((path) =>
      newest(join(ROOT, path)),
    ),
  );
}

/** Builds for sources since changed, once an hour old (a run that started on one has ended). */
function removeOldSharedBuilds(current: string): void {
  const dist = join(ROOT, 'dist');
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(dist)) {
    const path = join(dist, name);
    if (!name.startsWith('cli-e2e-shared-') || path === current) continue;
    if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
  }
}
