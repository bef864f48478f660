import type { Client } from 'pg';
import { sleep, timestamp } from '../deposits/clock';
import { apiNodeArgs, startNode, TrackedProcess } from '../deposits/processes';
import { RAISED_RATE_LIMITS } from '../payouts/settings';
import { assertRunning, freePort } from '../payouts/services';
import { API_MAIN, benchEnvironment, WORKER_MAIN } from './settings';

/*
 * The service as the README runs it: the built API and the built worker, default configuration,
 * plus what sweeping on the devnet needs (the devnet's networks file with its confirmations, the
 * hot wallet, and the treasury's files). Started through bench/deposits/processes.ts.
 */

export interface ServiceFiles {
  networksFile: string;
  hotWalletsFile: string;
  /** TREASURY_FILE, SWEEPER_KEYS_FILE, DEPOSIT_KEYS_FILE. */
  treasury: Record<string, string>;
}

export interface Api {
  url: string;
  process: TrackedProcess;
}

const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;

export async function startApi(files: ServiceFiles, logFile: string): Promise<Api> {
  const port = await freePort();
  const env = benchEnvironment({
    // Not the default: one merchant creates every session, above a merchant's 100 a second.
    ...RAISED_RATE_LIMITS,
    PORT: String(port),
    NETWORKS_FILE: files.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
  });
  const child = startNode('api', apiNodeArgs(API_MAIN), env, logFile);
  const url = `http://127.0.0.1:${port}`;
  const deadline = timestamp() + START_TIMEOUT_MS;
  for (;;) {
    assertRunning(child);
    if (await isHealthy(url)) return { url, process: child };
    if (timestamp() > deadline) throw new Error(`The API did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
}

/**
 * Starts the worker and waits until it has registered the hot wallet and the sweeper (both at
 * bootstrap): from then on funding can be booked and sweeps signed. `sweepIntervalMs`: the tuned
 * setup's TREASURY_SWEEP_INTERVAL_MS; null keeps the default.
 */
export async function startWorker(
  db: Client,
  files: ServiceFiles,
  logFile: string,
  sweepIntervalMs: number | null,
): Promise<TrackedProcess> {
  const startedAt = timestamp();
  const env = benchEnvironment({
    NETWORKS_FILE: files.networksFile,
    HOT_WALLETS_FILE: files.hotWalletsFile,
    WATCH_NETWORKS: 'ETHEREUM',
    WORKER_METRICS_PORT: String(await freePort()),
    ...files.treasury,
    ...(sweepIntervalMs === null ? {} : { TREASURY_SWEEP_INTERVAL_MS: String(sweepIntervalMs) }),
  });
  const child = startNode('worker', [WORKER_MAIN], env, logFile);
  const deadline = startedAt + START_TIMEOUT_MS;
  while (!(await walletsRegisteredSince(db, startedAt))) {
    assertRunning(child);
    if (timestamp() > deadline) throw new Error(`The worker did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
  return child;
}

async function walletsRegisteredSince(db: Client, since: number): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM hot_wallets WHERE network = 'ETHEREUM'
               AND updated_at >= to_timestamp($1 / 1000.0))
          + (SELECT count(*) FROM treasury_wallets WHERE network = 'ETHEREUM' AND role = 'sweeper'
               AND updated_at >= to_timestamp($1 / 1000.0)) AS n`,
    [since],
  );
  return Number(rows[0].n) === 2;
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}
