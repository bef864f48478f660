import { readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { timestamp } from '../kit/clock';
import { flushRedis } from '../kit/database';
import type { TrackedProcess } from '../kit/processes';
import { startWorker as startBuiltWorker, waitUntil } from '../kit/services';
import { SQL_TRACE_PRELOAD } from '../kit/settings';
import { cursorBlock, cursorUpdatedAt } from './database';
import { appEnvironment, TARGET } from './settings';

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
  /** Names the worker in the output and its log file: "default", "3000 ms", "mainnet-shaped". */
  label: string;
  /** DEPOSIT_SCAN_INTERVAL_MS, or null: not set, the worker's default applies. */
  scanIntervalMs: number | null;
}

export interface Worker extends WorkerConfig {
  /** How often it asks the devnet for its head, as the worker logged it at start. */
  pollIntervalMs: number;
  process: TrackedProcess;
}

// Ticks committed before a run starts: the first one creates the cursor and JIT-compiles the
// scan path, so latency samples never pay for a cold start.
const WARM_UP_TICKS = 2;
// A full tick runs only when the head moved: on an automining devnet nothing moves it unless we
// do, so the warm-up mines an empty block whenever the cursor has not moved for this long.
const NUDGE_AFTER_MS = 300;
// What libs/checkout/src/deposits/poll-interval.ts gives a devnet (chain id 31337), if the
// worker's start line cannot be read.
const DEVNET_POLL_INTERVAL_MS = 250;

/**
 * Starts a worker (default configuration and logging: info logs only ticks that found something)
 * and returns once it has committed two ticks; `nudge` moves the head (mines an empty block).
 */
export async function startWorker(
  db: Client,
  config: WorkerConfig,
  files: WorkerFiles,
  nudge: () => Promise<unknown>,
): Promise<Worker> {
  // Queues left by the previous worker (stalled maintenance jobs) go first.
  await flushRedis(TARGET.redisUrl);
  const startedAt = timestamp();
  const env = appEnvironment({
    NETWORKS_FILE: files.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
    ...(config.scanIntervalMs === null
      ? {}
      : { DEPOSIT_SCAN_INTERVAL_MS: String(config.scanIntervalMs) }),
  });
  // Every full tick saves the cursor row, found something or not: its updated_at counts them.
  const ticks = new Set<number>();
  let movedAt = timestamp();
  const child = await startBuiltWorker({
    name: `worker (${config.label})`,
    env,
    logFile: files.logFile,
    cpuProfileDir: files.cpuProfileDir,
    nodeOptions: files.sqlTrace ? ['--require', SQL_TRACE_PRELOAD] : [],
    ipc: files.sqlTrace,
    ready: async () => {
      const updatedAt = await cursorUpdatedAt(db);
      if (updatedAt !== null && updatedAt > startedAt && !ticks.has(updatedAt)) {
        ticks.add(updatedAt);
        movedAt = timestamp();
      }
      // The first tick runs unprompted; the next one needs a new head.
      if (ticks.size > 0 && timestamp() - movedAt > NUDGE_AFTER_MS) {
        await nudge();
        movedAt = timestamp();
      }
      return ticks.size >= WARM_UP_TICKS;
    },
  });
  const pollIntervalMs = loggedPollInterval(files.logFile) ?? DEVNET_POLL_INTERVAL_MS;
  return { ...config, pollIntervalMs, process: child };
}

/** The poll interval of ETHEREUM from the worker's "Deposit watching started" log line. */
function loggedPollInterval(logFile: string): number | null {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('Deposit watching started')) continue;
    try {
      const interval = (JSON.parse(line) as { pollIntervalsMs?: Record<string, number> })
        .pollIntervalsMs?.ETHEREUM;
      if (typeof interval === 'number') return interval;
    } catch {
      // Not a JSON line: keep looking.
    }
  }
  return null;
}

/** Until the worker has scanned up to `head`. */
export function waitForCursor(db: Client, worker: Worker, head: number): Promise<void> {
  return waitUntil(worker.process, async () => ((await cursorBlock(db)) ?? -1) >= head);
}
