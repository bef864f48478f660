import { createServer } from 'node:net';
import type { Client } from 'pg';
import { sleep, timestamp } from '../deposits/clock';
import { apiNodeArgs, hasExited, startNode, TrackedProcess } from '../deposits/processes';
import {
  API_MAIN,
  apiEnvironment,
  DevnetFiles,
  EXIT_ON_SIGTERM,
  WORKER_MAIN,
  workerEnvironment,
} from './settings';

/*
 * The service as the README runs it: the built API and the built worker, each its own process,
 * with the default configuration. Started and stopped through bench/deposits/processes.ts.
 */

export interface Api {
  url: string;
  process: TrackedProcess;
}

const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;

export async function startApi(
  files: DevnetFiles,
  logFile: string,
  cpuProfileDir: string | null,
): Promise<Api> {
  const port = await freePort();
  const child = startNode(
    'api',
    apiNodeArgs(API_MAIN, profileOptions(cpuProfileDir)),
    apiEnvironment(files, port),
    logFile,
  );
  const api = { url: `http://127.0.0.1:${port}`, process: child };
  const deadline = timestamp() + START_TIMEOUT_MS;
  for (;;) {
    assertRunning(child);
    if (await isHealthy(api.url)) return api;
    if (timestamp() > deadline) throw new Error(`The API did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
}

/**
 * Starts a worker and waits until it has registered the hot wallet (HotWallets at bootstrap,
 * the moment its payout queue is being set up): the row's updated_at moves past the start.
 */
export async function startWorker(
  db: Client,
  name: string,
  files: DevnetFiles,
  logFile: string,
  cpuProfileDir: string | null,
): Promise<TrackedProcess> {
  const startedAt = timestamp();
  const child = startNode(
    name,
    [...profileOptions(cpuProfileDir), WORKER_MAIN],
    workerEnvironment(files, await freePort()),
    logFile,
  );
  const deadline = startedAt + START_TIMEOUT_MS;
  while (!(await hotWalletRegisteredSince(db, startedAt))) {
    assertRunning(child);
    if (timestamp() > deadline) throw new Error(`${name} did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
  return child;
}

// The service's default PAY_ADDRESS_POOL_TARGET, which a worker fills on its first start.
const DEFAULT_POOL_TARGET = 60_000;
// About 30 s of CPU: on a shared 2-core machine at load average 30 it took more than 5 minutes.
const POOL_FILL_TIMEOUT_MS = 900_000;
const POOL_POLL_MS = 1_000;

/**
 * Waits until the worker has filled the pay-address pool of a new database (about half a minute
 * of its CPU, once per deployment), as bench:api does: the phases measure payouts, not that.
 */
export async function waitForPoolFill(db: Client, worker: TrackedProcess): Promise<number> {
  const startedAt = timestamp();
  for (;;) {
    const { rows } = await db.query(
      `SELECT min(n)::int AS n FROM (SELECT count(*) AS n FROM pay_addresses
        WHERE claimed_at IS NULL GROUP BY chain_family) counts`,
    );
    if ((rows[0]?.n ?? 0) >= DEFAULT_POOL_TARGET) return timestamp() - startedAt;
    assertRunning(worker);
    if (timestamp() - startedAt > POOL_FILL_TIMEOUT_MS) {
      throw new Error(`${worker.name} did not fill the pay-address pool; see ${worker.logFile}`);
    }
    await sleep(POOL_POLL_MS);
  }
}

/** A dead API or worker would otherwise end in a timeout much later. */
export function assertRunning(child: TrackedProcess): void {
  if (hasExited(child)) throw new Error(`The ${child.name} exited; see ${child.logFile}`);
}

async function hotWalletRegisteredSince(db: Client, since: number): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' AND updated_at >= to_timestamp($1 / 1000.0)`,
    [since],
  );
  return rows.length > 0;
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}

/** --cpu-prof: node writes the profile at exit, which a SIGTERM would skip without the preload. */
function profileOptions(directory: string | null): string[] {
  if (!directory) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${directory}`, '--require', EXIT_ON_SIGTERM];
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
