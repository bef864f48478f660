import { ChildProcess, spawn, spawnSync, StdioOptions } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { flags as API_NODE_FLAGS } from '../../apps/api/node-flags.json';
import { API_MAIN, CLI_MAIN, ROOT, WORKER_MAIN } from './settings';

/*
 * Every child process the benchmark starts is tracked here and stopped on success, failure or
 * Ctrl-C: only the ones we started, by their own process, never by name.
 */

export interface TrackedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<void>;
  /** Set when we stop it ourselves, so its exit is not reported as a crash. */
  stopping: boolean;
}

const STOP_TIMEOUT_MS = 10_000;
const running = new Set<TrackedProcess>();

/**
 * Starts `node ...args` in `cwd` (the repository; bench:api --app-dir another checkout) with its
 * output appended to logFile (and IPC).
 */
export function startNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  ipc = false,
  cwd = ROOT,
): TrackedProcess {
  const log = openSync(logFile, 'a');
  const stdio: StdioOptions = ipc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log];
  const child = spawn(process.execPath, args, { cwd, env, stdio });
  closeSync(log);
  const tracked: TrackedProcess = {
    name,
    child,
    logFile,
    exited: Promise.resolve(),
    stopping: false,
  };
  tracked.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(tracked);
      if (!tracked.stopping)
        console.error(`[bench] ${name} exited unexpectedly (${signal ?? code})`);
      resolve();
    });
  });
  running.add(tracked);
  return tracked;
}

/**
 * The `node` arguments that start the built API `main` as production does: the API's node flags
 * (apps/api/node-flags.json), then `options` of the benchmark's own (profiling, preloads).
 */
export function apiNodeArgs(main: string, options: string[] = []): string[] {
  return [...API_NODE_FLAGS, ...options, main];
}

export function hasExited(tracked: TrackedProcess): boolean {
  return tracked.child.exitCode !== null || tracked.child.signalCode !== null;
}

/** A dead API or worker would otherwise end in a timeout much later. */
export function assertRunning(tracked: TrackedProcess): void {
  if (hasExited(tracked)) throw new Error(`The ${tracked.name} exited; see ${tracked.logFile}`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** SIGTERM (the worker closes its queues and pool), SIGKILL if it hangs. */
export async function stopProcess(tracked: TrackedProcess): Promise<void> {
  tracked.stopping = true;
  if (hasExited(tracked)) return;
  tracked.child.kill('SIGTERM');
  const timer = setTimeout(() => tracked.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await tracked.exited;
  clearTimeout(timer);
}

export async function stopAllProcesses(): Promise<void> {
  await Promise.all([...running].map(stopProcess));
}

/** Stops our children on Ctrl-C and, as a last resort, when the benchmark process exits. */
export function installCleanup(cleanup: () => Promise<void>): void {
  process.on('exit', () => {
    for (const tracked of running) tracked.child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n[bench] ${signal}: stopping child processes`);
      cleanup().finally(() => process.exit(1));
    });
  }
}

/** Runs an operator CLI command and returns its JSON answer (the CLI's last stdout line). */
export function runCli<T>(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): T {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...args], { cwd, env, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`cli ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as T;
}

/** `npm run build` in `cwd`, or with --no-build a check that the entry points `mains` exist. */
export function build(
  enabled: boolean,
  step: (message: string) => void,
  mains: string[] = [API_MAIN, WORKER_MAIN, CLI_MAIN],
  cwd = ROOT,
): void {
  if (!enabled) {
    for (const main of mains) {
      if (!existsSync(join(cwd, main))) throw new Error(`--no-build, but ${main} is missing.`);
    }
    step('--no-build: using dist/ as it is');
    return;
  }
  step(`npm run build${cwd === ROOT ? '' : ` in ${cwd}`}`);
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status}).`);
}
