import type { Client } from 'pg';
import { Rpc } from '../deposits/chain';
import { sleep, timestamp } from '../deposits/clock';
import type { TrackedProcess } from '../deposits/processes';
import type { RpcLog } from '../deposits/rpc-log';
import { HeadTracker, receipts } from './chain';
import { cpuSnapshot, CpuUsage, cpuUsage } from './cpu';
import { Figures, figures } from './figures';
import { payoutTimes, Progress, progress } from './journal';
import { createPayouts, PayoutRequest, RequestRecord } from './load';
import { Api, assertRunning } from './services';
import { DATABASE, DATABASE_URL } from './settings';
import { SessionSampler, SessionSamples } from './waits';

/*
 * One phase: N payouts created through the API as fast as it takes them, then followed in
 * PostgreSQL until every one is Completed (or nothing moves for STALL_TIMEOUT_MS), then each
 * payout's moments read from the journal and its block from anvil.
 */

export interface PhaseContext {
  db: Client;
  rpc: Rpc;
  rpcLog: RpcLog;
  head: HeadTracker;
  api: Api;
  anvilPid: number | null;
  step: (message: string) => void;
}

export interface PhaseResult extends Figures {
  name: string;
  workers: number;
  /** Merchants whose payouts were created, in turn. */
  merchants: number;
  concurrency: number;
  /** No payout moved for STALL_TIMEOUT_MS before all were Completed. */
  stalled: boolean;
  progress: Progress;
  cpu: CpuUsage;
  /**
   * From the first request to the last answer only: what creating the payouts cost (the worker
   * already sends the first ones meanwhile; its share is in `workers`).
   */
  creationCpu: CpuUsage;
  /** The API's and workers' PostgreSQL sessions: running, waiting for locks, idle in transaction. */
  sessions: SessionSamples;
  /** anvil requests in the window: all the workers' (the benchmark sends none meanwhile). */
  rpc: Record<string, number>;
  /** Per created payout, the same. */
  rpcPerPayout: Record<string, number>;
  /** For the verification; left out of the JSON. */
  records: RequestRecord[];
  ids: string[];
}

// Nothing moving this long means the run cannot finish: report what it reached.
const STALL_TIMEOUT_MS = 120_000;
const PROGRESS_POLL_MS = 200;
const PROGRESS_PRINT_MS = 5_000;

export async function runPhase(
  context: PhaseContext,
  name: string,
  workers: TrackedProcess[],
  requests: PayoutRequest[],
  concurrency: number,
): Promise<PhaseResult> {
  const { step } = context;
  const pids: Record<string, number | null> = { api: context.api.process.child.pid ?? null };
  for (const worker of workers) pids[worker.name] = worker.child.pid ?? null;
  pids.anvil = context.anvilPid;
  const rpcMark = context.rpcLog.mark();
  const cpuBefore = cpuSnapshot(pids);
  const sampler = await SessionSampler.start(DATABASE_URL, DATABASE);

  const merchants = new Set(requests.map((request) => request.merchantId)).size;
  step(
    `${name}: creating ${requests.length} payouts of ${merchants} merchant(s), ` +
      `${concurrency} requests in flight`,
  );
  const records = await createPayouts(context.api, requests, concurrency, context.head);
  const creationCpu = cpuUsage(cpuBefore, cpuSnapshot(pids));
  const ids = records.flatMap((record) => (record.payoutId ? [record.payoutId] : []));
  const loadSeconds =
    (Math.max(...records.map((r) => r.endedAt)) - Math.min(...records.map((r) => r.startedAt))) /
    1000;
  step(
    `${name}: ${ids.length} of ${requests.length} created in ${loadSeconds.toFixed(1)} s; ` +
      'waiting until all are Completed',
  );
  const { stalled, last } = await waitUntilCompleted(context, name, ids, workers);

  const cpu = cpuUsage(cpuBefore, cpuSnapshot(pids));
  const sessions = await sampler.stop();
  const rpc = Object.fromEntries(await context.rpcLog.methodCountsSince(rpcMark));
  const times = await payoutTimes(context.db, ids);
  const mined = await receipts(
    context.rpc,
    times.flatMap((payout) => (payout.txHash ? [payout.txHash] : [])),
  );
  const result: PhaseResult = {
    name,
    workers: workers.length,
    merchants,
    concurrency,
    ...figures(records, times, mined, context.head),
    stalled,
    progress: last,
    cpu,
    creationCpu,
    sessions,
    rpc,
    rpcPerPayout: Object.fromEntries(
      Object.entries(rpc).map(([method, calls]) => [
        method,
        Math.round((calls / Math.max(ids.length, 1)) * 100) / 100,
      ]),
    ),
    records,
    ids,
  };
  step(
    `${name}: ${result.broadcast.count} broadcast (${result.broadcast.perSecond ?? '-'}/s), ` +
      `${result.completed.count} Completed (${result.completed.perSecond ?? '-'}/s)`,
  );
  return result;
}

async function waitUntilCompleted(
  context: PhaseContext,
  name: string,
  ids: string[],
  workers: TrackedProcess[],
): Promise<{ stalled: boolean; last: Progress }> {
  let last = await progress(context.db, ids);
  let movedAt = timestamp();
  let printedAt = timestamp();
  while (last.completed < ids.length) {
    if (timestamp() - movedAt > STALL_TIMEOUT_MS) {
      context.step(
        `${name}: nothing moved for ${STALL_TIMEOUT_MS / 1000} s: ${describe(last)}; giving up`,
      );
      return { stalled: true, last };
    }
    for (const child of [context.api.process, ...workers]) assertRunning(child);
    await sleep(PROGRESS_POLL_MS);
    const now = await progress(context.db, ids);
    if (now.completed !== last.completed || now.broadcast !== last.broadcast) movedAt = timestamp();
    last = now;
    if (timestamp() - printedAt >= PROGRESS_PRINT_MS) {
      context.step(`${name}: ${describe(last)}`);
      printedAt = timestamp();
    }
  }
  return { stalled: false, last };
}

export function describe(state: Progress): string {
  const statuses = Object.entries(state.byStatus)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  const reasons = Object.entries(state.pendingReasons)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return `${state.broadcast} broadcast; ${statuses}${reasons ? ` (pending: ${reasons})` : ''}`;
}
