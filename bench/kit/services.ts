import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Client } from 'pg';
import { sleep, timestamp } from './clock';
import { apiNodeArgs, assertRunning, freePort, startNode, TrackedProcess } from './processes';
import { API_MAIN, EXIT_ON_SIGTERM, ROOT, WORKER_MAIN } from './settings';

/*
 * The service as the README starts it: the built API (with its node flags) and the built worker,
 * each its own process, in the environment a benchmark gives (bench/kit/settings.ts: the
 * defaults, plus what that benchmark needs and says so).
 */

export interface Api {
  url: string;
  port: number;
  process: TrackedProcess;
}

export interface StartOptions {
  /** The environment (kit/settings.ts `environment`); PORT and WORKER_METRICS_PORT are added. */
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** node --cpu-prof into this directory (the profile is written when the process stops). */
  cpuProfileDir?: string | null;
  /** More node options (preloads). */
  nodeOptions?: string[];
  /** The API's port (default: a free one). */
  port?: number;
  /** Another checkout to run (bench:api --app-dir). */
  cwd?: string;
  /** An IPC channel to the process (the --trace-sql preload answers over it). */
  ipc?: boolean;
  timeoutMs?: number;
}

const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;

/** node options that write a CPU profile on exit, which a SIGTERM would skip without the preload. */
export function profileOptions(directory: string | null | undefined): string[] {
  if (!directory) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${directory}`, '--require', EXIT_ON_SIGTERM];
}

/** Starts the built API and returns once /health answers. */
export async function startApi(options: StartOptions): Promise<Api> {
  const port = options.port ?? (await freePort());
  const child = startNode(
    'api',
    apiNodeArgs(API_MAIN, [
      ...profileOptions(options.cpuProfileDir),
      ...(options.nodeOptions ?? []),
    ]),
    { ...options.env, PORT: String(port) },
    options.logFile,
    options.ipc,
    options.cwd ?? ROOT,
  );
  const url = `http://127.0.0.1:${port}`;
  // Ours, not a process that took the port between freePort() and the API's listen.
  const ours = () => child.child.pid === undefined || listensOn(child.child.pid, port);
  await waitUntil(child, async () => (await isHealthy(url)) && ours(), options.timeoutMs);
  return { url, port, process: child };
}

/**
 * Starts a built worker, its metrics on a port of its own (another benchmark's worker may hold
 * the default one); with `ready`, returns once that holds (what the benchmark needs it to have
 * done at bootstrap).
 */
export async function startWorker(
  options: StartOptions & { name?: string; ready?: () => Promise<boolean> },
): Promise<TrackedProcess> {
  const child = startNode(
    options.name ?? 'worker',
    [...profileOptions(options.cpuProfileDir), ...(options.nodeOptions ?? []), WORKER_MAIN],
    { WORKER_METRICS_PORT: String(await freePort()), ...options.env },
    options.logFile,
    options.ipc,
    options.cwd ?? ROOT,
  );
  if (options.ready) await waitUntil(child, options.ready, options.timeoutMs);
  return child;
}

/** Polls `condition` until it holds; fails at once if `child` exits, or after the timeout. */
export async function waitUntil(
  child: TrackedProcess,
  condition: () => Promise<boolean>,
  timeoutMs = START_TIMEOUT_MS,
  pollMs = READY_POLL_MS,
): Promise<void> {
  const deadline = timestamp() + timeoutMs;
  while (!(await condition())) {
    assertRunning(child);
    if (timestamp() > deadline) {
      throw new Error(`The ${child.name} was not ready in ${timeoutMs} ms; see ${child.logFile}`);
    }
    await sleep(pollMs);
  }
}

/** Whether the worker registered the network's hot wallet since `since` (done at bootstrap). */
export async function hotWalletRegisteredSince(db: Client, since: number): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' AND updated_at >= to_timestamp($1 / 1000.0)`,
    [since],
  );
  return rows.length > 0;
}

// The service's default PAY_ADDRESS_POOL_TARGET, which a worker fills on its first start.
export const DEFAULT_POOL_TARGET = 60_000;

/**
 * Waits until the worker has filled the pay-address pool of a new database, both chain families
 * (about half a minute of its CPU, once per deployment): the measurements are not about that.
 * Returns how long it took.
 */
export async function waitForPoolFill(
  db: Client,
  worker: TrackedProcess,
  timeoutMs = 900_000,
): Promise<number> {
  const startedAt = timestamp();
  await waitUntil(
    worker,
    async () => {
      const { rows } = await db.query<{ n: number; families: number }>(
        `SELECT coalesce(min(n), 0)::int AS n, count(*)::int AS families FROM (
           SELECT count(*) AS n FROM pay_addresses WHERE claimed_at IS NULL GROUP BY chain_family
         ) counts`,
      );
      return rows[0].families >= 2 && rows[0].n >= DEFAULT_POOL_TARGET;
    },
    timeoutMs,
    1_000,
  );
  return timestamp() - startedAt;
}

/** A JSON request with a merchant's API key; anything but 2xx throws with the answer. */
export async function callApi<T>(
  api: Api,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Whether `pid` holds the listening socket of `port` (Linux /proc; true where there is none). */
export function listensOn(pid: number, port: number): boolean {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = existsSync(table) ? readFileSync(table, 'utf8').split('\n').slice(1) : [];
    for (const fields of lines.map((line) => line.trim().split(/\s+/))) {
      // local address, state 0A (LISTEN), inode
      if (fields[1]?.endsWith(hexPort) && fields[3] === '0A') inodes.add(fields[9]);
    }
  }
  if (!existsSync('/proc/net/tcp')) return true;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      const link = readlinkOrNull(`/proc/${pid}/fd/${fd}`);
      return link !== null && inodes.has(link.slice('socket:['.length, -1));
    });
  } catch {
    return false; // exited
  }
}

function readlinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}
