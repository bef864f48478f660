import type { Client } from 'pg';
import { sleep, timestamp } from '../deposits/clock';
import { apiNodeArgs, startNode, TrackedProcess } from '../deposits/processes';
import { assertRunning, freePort } from '../payouts/services';
import { API_MAIN, apiEnvironment, DevnetFiles, WORKER_MAIN, workerEnvironment } from './settings';

/* The built API and worker, each its own process, started as bench:payouts starts them. */

const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;

export interface Api {
  url: string;
  process: TrackedProcess;
}

export async function startApi(files: DevnetFiles, logFile: string): Promise<Api> {
  const port = await freePort();
  const child = startNode('api', apiNodeArgs(API_MAIN), apiEnvironment(files, port), logFile);
  const api = { url: `http://127.0.0.1:${port}`, process: child };
  const deadline = timestamp() + START_TIMEOUT_MS;
  for (;;) {
    assertRunning(child);
    if (await isHealthy(api.url)) return api;
    if (timestamp() > deadline) throw new Error(`The API did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
}

/** Waits until the worker has registered the hot wallet (its payout queue is being set up). */
export async function startWorker(
  db: Client,
  files: DevnetFiles,
  logFile: string,
): Promise<TrackedProcess> {
  const startedAt = timestamp();
  const child = startNode(
    'worker',
    [WORKER_MAIN],
    workerEnvironment(files, await freePort()),
    logFile,
  );
  const deadline = startedAt + START_TIMEOUT_MS;
  for (;;) {
    const { rows } = await db.query(
      `SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' AND updated_at >= to_timestamp($1 / 1000.0)`,
      [startedAt],
    );
    if (rows.length) return child;
    assertRunning(child);
    if (timestamp() > deadline) throw new Error(`The worker did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}
