import { readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { sleep, timestamp } from '../kit/clock';
import { flushRedis } from '../kit/database';
import { hasExited, stopProcess, TrackedProcess } from '../kit/processes';
import { startWorker as startBuiltWorker } from '../kit/services';
import { SQL_TRACE_PRELOAD } from '../kit/settings';
import { cursorBlock, cursorUpdatedAt } from './database';
import { REDIS_URL, workerEnvironment } from './settings';

/** The real built worker (`node dist/apps/worker/...`), watching only the devnet's ETHEREUM. */

export interface WorkerFiles {
  networksFile: string;
  logFile: string;
  /** --trace-sql: preload the SQL tracer, asked over an IPC channel. */
  sqlTrace: boolean;
  /** Set with --cpu-prof: where node writes the profile when the worker stops. */
  cpuProfileDir: string | null;
}

export interface WorkerConfig {
  /** Names the worker in the output and its log file: "default", "3000 ms", "mainnet". */
  label: string;
  /** DEPOSIT_SCAN_INTERVAL_MS, or null: not set, the worker's default applies. */
  scanIntervalMs: number | null;
}

export interface Worker extends WorkerConfig {
  /** How often it asks the devnet for its head, as the worker logged it at start. */
  pollIntervalMs: number;
  process: TrackedProcess;
  files: WorkerFiles;
}

// Ticks committed before a run starts: the first one creates the cursor and JIT-compiles the
// scan path, so latency samples never pay for a cold start.
const WARM_UP_TICKS = 2;
const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 50;
// A full tick runs only when the head moved: on an automining devnet nothing moves it unless we
// do, so the warm-up mines an empty block whenever the cursor has not moved for this long.
const NUDGE_AFTER_MS = 300;
// What libs/checkout/src/deposits/poll-interval.ts gives a devnet (chain id 31337), if the
// worker's start line cannot be read.
const DEVNET_POLL_INTERVAL_MS = 250;
const STARTED_LINE = 'Deposit watching started';

/**
 * Starts a worker and returns once it has committed two ticks. `nudge` moves the head (mines an
 * empty block) when the chain would not move by itself.
 */
export async function startWorker(
  db: Client,
  config: WorkerConfig,
  files: WorkerFiles,
  nudge: (() => Promise<unknown>) | null,
): Promise<Worker> {
  // Queues left by the previous worker (stalled maintenance jobs) go first.
  await flushRedis(REDIS_URL);
  const startedAt = timestamp();
  const child = await startBuiltWorker({
    name: `worker (${config.label})`,
    env: workerEnvironment({
      networksFile: files.networksFile,
      scanIntervalMs: config.scanIntervalMs,
    }),
    logFile: files.logFile,
    cpuProfileDir: files.cpuProfileDir,
    nodeOptions: files.sqlTrace ? ['--require', SQL_TRACE_PRELOAD] : [],
    ipc: files.sqlTrace,
  });
  const worker: Worker = { ...config, pollIntervalMs: NaN, process: child, files };
  await waitForTicks(db, worker, startedAt, nudge);
  worker.pollIntervalMs = loggedPollInterval(files.logFile) ?? DEVNET_POLL_INTERVAL_MS;
  return worker;
}

/** The poll interval of ETHEREUM from the worker's "Deposit watching started" log line. */
function loggedPollInterval(logFile: string): number | null {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes(STARTED_LINE)) continue;
    try {
      const entry = JSON.parse(line) as { pollIntervalsMs?: Record<string, number> };
      const interval = entry.pollIntervalsMs?.ETHEREUM;
      if (typeof interval === 'number') return interval;
    } catch {
      // Not a JSON line: keep looking.
    }
  }
  return null;
}

/** Until the worker has scanned up to `head`. */
export async function waitForCursor(db: Client, worker: Worker, head: number): Promise<void> {
  const deadline = timestamp() + START_TIMEOUT_MS;
  while (((await cursorBlock(db)) ?? -1) < head) {
    assertRunning(worker);
    if (timestamp() > deadline) throw new Error(`The worker did not reach block ${head}.`);
    await sleep(READY_POLL_MS);
  }
}

/** Waiting for a dead worker to settle anything would only end in a timeout. */
export function assertRunning(worker: Worker): void {
  if (hasExited(worker.process)) {
    throw new Error(`The worker exited; see ${worker.files.logFile}`);
  }
}

export function stopWorker(worker: Worker): Promise<void> {
  return stopProcess(worker.process);
}

/** Every full tick saves the cursor row, found something or not: its updated_at counts them. */
async function waitForTicks(
  db: Client,
  worker: Worker,
  startedAt: number,
  nudge: (() => Promise<unknown>) | null,
): Promise<void> {
  const seen = new Set<number>();
  const deadline = startedAt + START_TIMEOUT_MS;
  let movedAt = timestamp();
  while (seen.size < WARM_UP_TICKS) {
    assertRunning(worker);
    if (timestamp() > deadline) {
      throw new Error(`The worker did not scan within ${START_TIMEOUT_MS} ms; see its log.`);
    }
    const updatedAt = await cursorUpdatedAt(db);
    if (updatedAt !== null && updatedAt > startedAt && !seen.has(updatedAt)) {
      seen.add(updatedAt);
      movedAt = timestamp();
    }
    // The first tick runs unprompted; the next one needs a new head.
    if (nudge && seen.size > 0 && timestamp() - movedAt > NUDGE_AFTER_MS) {
      await nudge();
      movedAt = timestamp();
    }
    await sleep(READY_POLL_MS);
  }
}
