import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sleep, timestamp } from '../kit/clock';
import { cpuSnapshot, cpuUsage, CpuUsage, stealMs } from '../kit/cpu';
import type { TrackedProcess } from '../kit/processes';
import { SessionSampler, SessionSamples } from '../kit/sessions';
import { readSqlTrace, SqlTraceSnapshot } from '../kit/sql-trace';
import { round } from '../kit/stats';
import type { Window } from './figures';
import { TARGET } from './settings';

/** What the machine and the database did during a phase's measured window. */
export interface WindowMeasures {
  cpu: CpuUsage;
  /** pg_stat_activity of the service's and the generator's sessions, every 100 ms. */
  sessions: SessionSamples;
  /** The worker's statements (--trace-sql only). */
  sql: StatementUse[] | null;
  /**
   * Signs of the whole machine stalling: the longest the (idle) orchestrator's event loop was
   * held up, and the cores the hypervisor gave to other machines (steal).
   */
  stall: { benchLoopDelayMaxMs: number; stealCores: number | null };
}

/** Waits for the window to open, measures until it closes. */
export async function measureWindow(
  window: Window,
  pids: Record<string, number | null>,
  worker: TrackedProcess,
): Promise<WindowMeasures> {
  await sleep(window.from - timestamp());
  const cpuBefore = cpuSnapshot(TARGET.database, pids);
  const stealBefore = stealMs();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const sqlBefore = await readSqlTrace(worker);
  const sampler = await SessionSampler.start(TARGET.databaseUrl, TARGET.database);
  await sleep(window.to - timestamp());
  const cpuAfter = cpuSnapshot(TARGET.database, pids);
  const stealAfter = stealMs();
  loopDelay.disable();
  const sqlAfter = await readSqlTrace(worker);
  const steal =
    stealBefore === null || stealAfter === null
      ? null
      : round((stealAfter - stealBefore) / (window.to - window.from), 2);
  return {
    cpu: cpuUsage(cpuBefore, cpuAfter),
    sessions: await sampler.stop(),
    sql: statementsBetween(sqlBefore, sqlAfter),
    stall: { benchLoopDelayMaxMs: Math.round(loopDelay.max / 1e6), stealCores: steal },
  };
}

/** The worker's statements in a window, from the --trace-sql tracer's running totals. */
export interface StatementUse {
  statement: string;
  count: number;
  totalMs: number;
  meanMs: number;
}

const TOP_STATEMENTS = 8;

export function statementsBetween(
  before: SqlTraceSnapshot | null,
  after: SqlTraceSnapshot | null,
): StatementUse[] | null {
  if (!before || !after) return null;
  return Object.entries(after.statements)
    .map(([statement, totals]) => {
      const earlier = before.statements[statement] ?? { count: 0, ms: 0 };
      const count = totals.count - earlier.count;
      const totalMs = totals.ms - earlier.ms;
      return { statement, count, totalMs: round(totalMs, 0), meanMs: round(totalMs / count, 2) };
    })
    .filter((use) => use.count > 0)
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, TOP_STATEMENTS);
}
