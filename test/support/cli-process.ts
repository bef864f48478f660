import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

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
  private constructor(private readonly build: string) {}

  static async build(name: string): Promise<CliProcess> {
    const build = join(ROOT, 'dist', `cli-e2e-${name}-${process.pid}`);
    const result = await run(
      [
        require.resolve('typescript/bin/tsc'),
        ...['-p', 'apps/cli/tsconfig.app.json', '--noCheck', '--sourceMap', 'false'],
        ...['--outDir', build],
      ],
      {},
      BUILD_TIMEOUT_MS,
    );
    if (result.code !== 0) throw new Error(`CLI build failed: ${result.stdout}${result.stderr}`);
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
    rmSync(this.build, { recursive: true, force: true });
  }
}
