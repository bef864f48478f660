import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { mainOf } from '../support/built-apps';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '..', '..');
// Logged once the worker's modules are up and its loops started (apps/worker bootstrap).
const READY = '"msg":"Deposit watching started"';

/**
 * The built worker as production runs it, one process at a time, SIGKILLed and started again on
 * the environment of the moment (the suite's chain). Its output (info and up) goes to one log
 * file, which also tells when a process has booted.
 */
export class WorkerProcess {
  private child: ChildProcess | undefined;
  private startedAt = 0;
  private readonly readyPids = new Set<number>();
  private logOffset = 0;
  private logTail = '';
  /** Seconds each start took until the worker was up. */
  readonly boots: number[] = [];
  kills = 0;

  constructor(private readonly logFile: string) {}

  start(): void {
    const log = openSync(this.logFile, 'a');
    const child = spawn(process.execPath, [mainOf('worker')], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', log, log],
    });
    this.child = child;
    closeSync(log);
    this.startedAt = Date.now();
    // A soak that dies (an uncaught error) must not leave its workers running on its own
    // PostgreSQL's port after it.
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.removeListener('exit', killOnExit));
  }

  /** Until the running process has booted: a kill before then would strike no work of its own. */
  async ready(timeoutMs = 180_000): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error('no worker running');
    if (this.readyPids.has(pid)) return;
    await waitFor(
      async () => {
        this.readLog();
        return this.readyPids.has(pid);
      },
      timeoutMs,
      `worker ${pid} up`,
    );
    this.boots.push(Math.round((Date.now() - this.startedAt) / 100) / 10);
  }

  /** SIGKILL: no shutdown hook runs, whatever the worker was doing stops mid-way. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.kills++;
  }

  async stop(): Promise<void> {
    const kills = this.kills;
    await this.kill();
    this.kills = kills;
  }

  tail(lines = 30): string {
    this.readLog();
    return this.logTail.split('\n').slice(-lines).join('\n');
  }

  /** Reads what the log gained since the last call; notes which processes said they are up. */
  private readLog(): void {
    let size: number;
    try {
      size = statSync(this.logFile).size;
    } catch {
      return;
    }
    if (size <= this.logOffset) return;
    const buffer = Buffer.alloc(size - this.logOffset);
    const fd = openSync(this.logFile, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, this.logOffset);
    } finally {
      closeSync(fd);
    }
    this.logOffset = size;
    const text = this.logTail + buffer.toString('utf8');
    const lines = text.split('\n');
    for (const line of lines) {
      if (!line.includes(READY)) continue;
      const pid = /"pid":(\d+)/.exec(line)?.[1];
      if (pid) this.readyPids.add(Number(pid));
    }
    // Keep the last lines for failure messages (and a line cut mid-way for the next read).
    this.logTail = lines.slice(-40).join('\n');
  }
}
