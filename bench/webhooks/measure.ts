import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sleep, timestamp } from '../kit/clock';
import { cpuSnapshot, cpuUsage, CpuUsage, stealMs } from '../kit/cpu';
import type { TrackedProcess } from '../kit/processes';
import { SessionSampler, SessionSamples } from '../kit/sessions';
import { readSqlTrace } from '../kit/sql-trace';
import type { Window } from './figures';
import { TARGET } from './settings';
import { statementsBetween, StatementUse } from './sql';

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
      : Math.round(((stealAfter - stealBefore) / (window.to - window.from)) * 100) / 100;
  return {
    cpu: cpuUsage(cpuBefore, cpuAfter),
    sessions: await sampler.stop(),
    sql: statementsBetween(sqlBefore, sqlAfter),
    stall: { benchLoopDelayMaxMs: Math.round(loopDelay.max / 1e6), stealCores: steal },
  };
}
