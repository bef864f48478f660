import type { Client } from 'pg';
import { Rpc } from '../kit/chain';
import { receipts } from '../kit/chain-reads';
import { sleep, timestamp } from '../kit/clock';
import { cpuSnapshot, CpuUsage, cpuUsage } from '../kit/cpu';
import type { HeadTracker } from '../kit/heads';
import { assertRunning, TrackedProcess } from '../kit/processes';
import type { RpcLog } from '../kit/rpc-log';
import type { Api } from '../kit/services';
import { SessionSampler, SessionSamples } from '../kit/sessions';
import type { Target } from '../kit/settings';
import { Figures, figures } from './figures';
import { describeProgress, payoutTimes, Progress, progress } from './journal';
import { Creation, createPayouts, PayoutItem, RequestRecord } from './load';

/*
 * One phase: its payouts created through the API as fast as it takes them, then followed in
 * PostgreSQL until every one is Completed (or nothing moves for STALL_TIMEOUT_MS), then each
 * payout's moments read from the journal and its block from anvil.
 */

export interface PhaseContext {
  target: Target;
  db: Client;
  rpc: Rpc;
  rpcLog: RpcLog;
  head: HeadTracker;
  api: Api;
  anvilPid: number | null;
  batchSize: number;
  concurrency: number;
  step: (message: string) => void;
}

/** What a phase is judged on (report.ts): one merchant's, several merchants', with two workers. */
export type PhaseRole = 'one merchant' | 'merchants' | 'two workers';

export interface PhaseSpec {
  name: string;
  role: PhaseRole;
  creation: Creation;
  items: PayoutItem[];
}

export interface PhaseResult extends Figures {
  name: string;
  role: PhaseRole;
  creation: Creation;
  workers: number;
  /** Merchants whose payouts were created, in turn. */
  merchants: number;
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
}

// Nothing moving this long means the run cannot finish: report what it reached.
const STALL_TIMEOUT_MS = 120_000;
const PROGRESS_POLL_MS = 200;
const PROGRESS_PRINT_MS = 5_000;

export async function runPhase(
  context: PhaseContext,
  spec: PhaseSpec,
  workers: TrackedProcess[],
): Promise<PhaseResult> {
  const { step, target, db } = context;
  const pids: Record<string, number | null> = { api: context.api.process.child.pid ?? null };
  for (const worker of workers) pids[worker.name] = worker.child.pid ?? null;
  pids.anvil = context.anvilPid;
  // After the previous phase's receipts, read by the benchmark: not the workers' calls.
  const rpcMark = await context.rpcLog.markAfterFlush();
  const cpuBefore = cpuSnapshot(target.database, pids);
  const sampler = await SessionSampler.start(target.databaseUrl, target.database);

  const merchants = new Set(spec.items.map((item) => item.merchant.id)).size;
  step(
    `${spec.name}: creating ${spec.items.length} payouts of ${merchants} merchant(s), ` +
      (spec.creation === 'single' ? 'one a request' : `in batches of up to ${context.batchSize}`) +
      `, ${context.concurrency} requests in flight at most`,
  );
  const records = await createPayouts(context, spec.items, { ...context, creation: spec.creation });
  const creationCpu = cpuUsage(cpuBefore, cpuSnapshot(target.database, pids));
  const ids = records.flatMap((record) => record.payoutIds);
  step(
    `${spec.name}: ${ids.length} of ${spec.items.length} created in ${creationCpu.seconds} s; waiting until all are Completed`,
  );

  let last = await progress(db, ids);
  let movedAt = timestamp();
  let printedAt = timestamp();
  let stalled = false;
  while (last.completed < ids.length && !stalled) {
    for (const child of [context.api.process, ...workers]) assertRunning(child);
    await sleep(PROGRESS_POLL_MS);
    const now = await progress(db, ids);
    if (now.completed !== last.completed || now.broadcast !== last.broadcast) movedAt = timestamp();
    last = now;
    stalled = timestamp() - movedAt > STALL_TIMEOUT_MS;
    if (stalled || timestamp() - printedAt >= PROGRESS_PRINT_MS) {
      step(
        `${spec.name}: ${describeProgress(last)}${stalled ? `; nothing moved for ${STALL_TIMEOUT_MS / 1000} s, giving up` : ''}`,
      );
      printedAt = timestamp();
    }
  }

  const cpu = cpuUsage(cpuBefore, cpuSnapshot(target.database, pids));
  const sessions = await sampler.stop();
  const rpc = await context.rpcLog.methodCountsSince(rpcMark);
  const times = await payoutTimes(db, ids);
  const mined = await receipts(
    context.rpc,
    times.flatMap((payout) => payout.txHash ?? []),
  );
  const result: PhaseResult = {
    name: spec.name,
    role: spec.role,
    creation: spec.creation,
    workers: workers.length,
    merchants,
    ...figures(records, times, mined, context.head),
    stalled,
    progress: last,
    cpu,
    creationCpu,
    sessions,
    rpc: Object.fromEntries(rpc),
    rpcPerPayout: Object.fromEntries(
      [...rpc].map(([method, calls]) => [
        method,
        Math.round((calls / Math.max(ids.length, 1)) * 100) / 100,
      ]),
    ),
    records,
  };
  step(
    `${spec.name}: ${result.broadcast.count} broadcast (${result.broadcast.perSecond ?? '-'}/s), ` +
      `${result.completed.count} Completed (${result.completed.perSecond ?? '-'}/s)`,
  );
  return result;
}
