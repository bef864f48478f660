import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainOf } from './built-apps';
import { waitFor } from './wait-for';

const ROOT = join(__dirname, '..', '..');
const WORKER_MAIN = mainOf('worker');

/**
 * The compiled worker (buildApp('worker') first) as a child process of the test, one at a time,
 * for the crash runs that kill it. Every worker's log (warnings and errors) lands in one file; a
 * failure prints its end. TEST_WORKER_LOG=<file> keeps every line (info) there instead.
 */
export class WorkerProcess {
  readonly logFile: string;
  private readonly logDir: string;
  private child: ChildProcess | undefined;

  constructor(logPrefix: string) {
    this.logDir = mkdtempSync(join(tmpdir(), `${logPrefix}-`));
    this.logFile = process.env.TEST_WORKER_LOG ?? join(this.logDir, 'workers.log');
  }

  start(): void {
    const log = openSync(this.logFile, 'a');
    this.child = spawn(process.execPath, [WORKER_MAIN], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.TEST_WORKER_LOG ? 'info' : 'warn' },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
  }

  /** Kills the running worker, if any still runs, and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /**
   * Waits for `check` while the running worker runs: one that died on its own (not killed by the
   * test) fails the wait at once. A failed wait says why, with `diagnostics`.
   */
  async waitWhileRunning(
    check: () => Promise<boolean>,
    ms: number,
    what: string,
    diagnostics: () => Promise<string>,
  ): Promise<void> {
    const running = this.child!;
    try {
      await waitFor(
        async () => {
          if (running.exitCode !== null) throw new Error(`worker exited ${running.exitCode}`);
          return check();
        },
        ms,
        what,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await diagnostics()}`);
    }
  }

  /** The last 40 lines of the workers' log. */
  lastLines(): string {
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-40).join('\n');
  }

  /** Removes the log's folder (once the worker is stopped). */
  removeLog(): void {
    rmSync(this.logDir, { recursive: true, force: true });
  }
}
