import type { CpuUsage } from '../kit/cpu';
import { count, fullMachineLine, Machine, printTable, Quietness, writeJson } from '../kit/report';
import type { Distribution } from '../kit/stats';
import type { BenchOptions } from './options';
import type { PhaseResult } from './phase';
import { NON_DEFAULT, SERVICE_DEFAULTS } from './settings';
import type { LoggedErrors, SignatureCheck } from './verify';

/** The issue's goals. */
const GOAL_DELIVERED_PER_SECOND = 500;
const GOAL_P99_CHANGE_PERCENT = 10;
const BELOW_TARGET = '<< BELOW TARGET';

/**
 * Per later phase at the live phase's rate, its live p99 against the live phase's: for the dead
 * phases that is the goal; for the repeat of the live phase, the noise between two alike.
 */
export type Goals = ReturnType<typeof goalsOf>;

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  quietness: { start: Quietness; end: Quietness | null };
  options: BenchOptions;
  service: typeof SERVICE_DEFAULTS & typeof NON_DEFAULT;
  phases: PhaseResult[];
  goals: Goals;
  verification: { signatures: SignatureCheck; logs: Record<string, LoggedErrors> };
  warnings: string[];
  failures: string[];
  files: Record<string, string>;
}

/** How much a dead phase moved the live endpoints' p99, against the live phase at its rate. */
export function goalsOf(phases: PhaseResult[], rate: number) {
  const live = phases.find((phase) => phase.kind === 'live' && phase.liveRate === rate) ?? null;
  const delivered = live?.figures.deliveredPerSecond ?? null;
  const baseline = live?.figures.latencyMs.p99 ?? null;
  return {
    delivered: {
      goal: GOAL_DELIVERED_PER_SECOND,
      phase: live?.name ?? null,
      perSecond: delivered,
      // Receiving what was offered, within rounding, is delivering the offered rate.
      met: delivered !== null && delivered >= GOAL_DELIVERED_PER_SECOND * 0.99,
    },
    p99Change: phases
      .filter((phase) => phase !== live && phase.liveRate === rate)
      .map((phase) => {
        const p99 = phase.figures.latencyMs.p99;
        const change =
          baseline && phase.figures.latencyMs.count
            ? Math.round(((p99 - baseline) / baseline) * 1000) / 10
            : null;
        return {
          phase: phase.name,
          dead: phase.dead !== null,
          changePercent: change,
          met: change !== null && change < GOAL_P99_CHANGE_PERCENT,
        };
      }),
  };
}

export function printReport(report: Report): void {
  const { options, service } = report;
  console.log('');
  console.log(
    `Webhooks, status change -> delivered on loopback: built API + ONE worker, default ` +
      `configuration (WEBHOOK_CONCURRENCY ${service.WEBHOOK_CONCURRENCY}, ` +
      `WEBHOOK_ENDPOINT_CONCURRENCY ${service.WEBHOOK_ENDPOINT_CONCURRENCY}, ` +
      `WEBHOOK_POLL_INTERVAL_MS ${service.WEBHOOK_POLL_INTERVAL_MS}, WEBHOOK_TIMEOUT_MS ` +
      `${service.WEBHOOK_TIMEOUT_MS}, DATABASE_POOL_SIZE ${service.DATABASE_POOL_SIZE}, LOG_LEVEL ` +
      `${service.LOG_LEVEL}) but WEBHOOKS_ALLOW_PRIVATE_URLS=true (the receivers are on loopback) ` +
      `and merchant rate limits raised (one merchant drives the load); ` +
      `${options.merchants} live merchants with an endpoint each; one transaction per event, up ` +
      `to ${options.inFlight} at once; ${options.warmupSeconds} s warm-up, ` +
      `${options.durationSeconds} s measured`,
  );
  printTable([
    [
      ...['phase', 'offered/s', 'generated/s', 'delivered/s', 'p50 ms', 'p90 ms', 'p99 ms'],
      ...['max ms', 'p99 vs live', 'backlog live', 'backlog dead', 'drain ms', 'other cores'],
    ],
    ...report.phases.map((phase) => {
      const latency = phase.figures.latencyMs;
      const change = report.goals.p99Change.find((goal) => goal.phase === phase.name);
      return [
        phase.name,
        phase.deadRate ? `${phase.liveRate} + ${phase.deadRate}` : String(phase.liveRate),
        phase.figures.generatedPerSecond.toFixed(1),
        phase.figures.deliveredPerSecond.toFixed(1),
        ...(['p50', 'p90', 'p99', 'max'] as const).map((key) => ms(latency, key)),
        change ? percent(change.changePercent) : '',
        count(phase.backlogAtEnd.live),
        phase.dead ? count(phase.backlogAtEnd.dead) : '',
        phase.drainMs === null ? 'timeout' : String(phase.drainMs),
        phase.cpu.otherCores === null ? '?' : phase.cpu.otherCores.toFixed(2),
      ];
    }),
  ]);
  console.log('');
  for (const phase of report.phases) printDetails(phase);
  printGoals(report.goals);
  printVerification(report);
  // The load average before the run: at the end it is mostly the run's own.
  console.log(fullMachineLine(report.machine, report.quietness.start));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
  for (const failure of report.failures) console.log(`FAIL: ${failure}`);
}

/** The JSON without the signed samples (bodies) nor per-request lists. */
export function writeReport(file: string, report: Report): void {
  writeJson(file, {
    ...report,
    phases: report.phases.map((phase) => ({ ...phase, samples: undefined })),
  });
}

function printDetails(phase: PhaseResult): void {
  const f = phase.figures;
  console.log(
    `${phase.name}: ${count(f.received)} of ${count(f.expected)} live deliveries received, ` +
      `${f.duplicates} twice; generator at most ${phase.generator.maxBehind} events behind its rate`,
  );
  console.log(`  delivered per second: ${f.deliveredTimeline.join(' ')}`);
  console.log(`  p99 ms of the events created in each second: ${f.p99Timeline.join(' ')}`);
  if (phase.dead) {
    const dead = phase.attempts.dead;
    const errors = Object.entries(dead.errors)
      .map(([error, n]) => `${n} ${error}`)
      .join(', ');
    console.log(
      `  dead endpoint(s) (${phase.dead}, ${phase.deadEndpoints}` +
        `${phase.backlog ? `, starting with ${count(phase.backlog)} due deliveries` : ''}), ` +
        `attempts ended in the window: ${count(dead.failed)} failed, ${count(dead.retries)} of ` +
        `them retries (${errors || 'none'}); ${count(f.deadArrivalsInWindow)} requests reached them`,
    );
  }
  const start = Date.parse(phase.times.start);
  for (const failure of phase.attempts.live.firstFailures) {
    console.log(
      `  failed attempt at a live endpoint ${((failure.at - start) / 1000).toFixed(2)} s into ` +
        `the phase, after ${failure.latencyMs} ms: ${failure.error ?? 'HTTP error'}`,
    );
  }
  const scan = phase.claimScan;
  console.log(
    `  claim at the window's end${phase.dead ? ' (dead endpoints skipped)' : ''}: ${scan.ms} ms, ` +
      `${count(scan.rowsSkipped)} due rows read and skipped, ${scan.rowsReturned} returned`,
  );
  console.log(`  CPU: ${formatCpu(phase.cpu)}`);
  console.log(
    `  stalls: the orchestrator's event loop held up ${phase.stall.benchLoopDelayMaxMs} ms at ` +
      `most; steal ${phase.stall.stealCores ?? '?'} cores`,
  );
  console.log(`  CPU per delivered event: ${cpuPerEvent(phase)}`);
  console.log(
    `  PostgreSQL sessions (${phase.sessions.samples} samples): ${phase.sessions.busy} busy on ` +
      `average, most often:`,
  );
  for (const state of phase.sessions.top.slice(0, 4)) {
    console.log(`    ${state.average.toFixed(2).padStart(6)}  ${state.state}: ${state.query}`);
  }
  if (phase.sql) {
    console.log(`  worker SQL in the window (--trace-sql): count, total ms, mean ms`);
    for (const use of phase.sql) {
      console.log(
        `    ${String(use.count).padStart(7)} ${String(use.totalMs).padStart(7)} ` +
          `${use.meanMs.toFixed(2).padStart(7)}  ${use.statement}`,
      );
    }
  }
  console.log('');
}

function printGoals(goals: Goals): void {
  const delivered = goals.delivered;
  console.log(
    `Goal: >= ${delivered.goal} events/s delivered by one worker (${
      delivered.phase ?? 'no live ' + 'phase at that rate'
    }): ${delivered.perSecond ?? '-'}/s ` + (delivered.met ? 'PASS' : BELOW_TARGET),
  );
  for (const goal of goals.p99Change.filter((change) => change.dead)) {
    console.log(
      `Goal: a dead endpoint changes the live p99 by < ${GOAL_P99_CHANGE_PERCENT} % ` +
        `(${goal.phase}): ${percent(goal.changePercent)} ${goal.met ? 'PASS' : BELOW_TARGET}`,
    );
  }
  for (const noise of goals.p99Change.filter((change) => !change.dead)) {
    console.log(
      `  for scale: the same live phase run again (${noise.phase}) moved p99 by ` +
        `${percent(noise.changePercent)}`,
    );
  }
}

function printVerification(report: Report): void {
  const { signatures, logs } = report.verification;
  const delivered = report.phases.reduce((sum, phase) => sum + phase.figures.received, 0);
  const logErrors = Object.entries(logs)
    .map(([name, errors]) => `${name} ${errors.count}`)
    .join(', ');
  const ok = !report.failures.length;
  console.log(
    `Verification: ${ok ? 'OK' : 'FAIL'} (${count(delivered)} live deliveries, each received ` +
      `exactly once by its endpoint ${ok ? 'and ' : ''}with its id in the body; ` +
      `${signatures.checked - signatures.failures.length}/${signatures.checked} sampled ` +
      `signatures verified with standardwebhooks; errors logged: ${logErrors})`,
  );
}

function formatCpu(cpu: CpuUsage): string {
  const parts = Object.entries(cpu.ms).map(
    ([name, ms]) =>
      `${name} ${ms ?? '?'} ms${ms === null ? '' : ` (${(ms / (cpu.seconds * 1000)).toFixed(2)} cores)`}`,
  );
  const other = cpu.otherCores === null ? '?' : cpu.otherCores.toFixed(2);
  return `${parts.join(', ')} over ${cpu.seconds} s; other processes ${other} cores`;
}

/** A worker is one thread: it cannot deliver faster than 1000 / (its CPU ms per event) a second. */
function cpuPerEvent(phase: PhaseResult): string {
  const delivered = Math.max(phase.figures.deliveredPerSecond * phase.cpu.seconds, 1);
  const per = (ms: number | null | undefined) =>
    ms === null || ms === undefined ? '?' : (ms / delivered).toFixed(2);
  return (
    `worker ${per(phase.cpu.ms.worker)} ms, PostgreSQL ${per(phase.cpu.ms.postgres)} ms, ` +
    `generator ${per(phase.cpu.ms.generator)} ms, receiver ${per(phase.cpu.ms.receiver)} ms`
  );
}

function ms(latency: Distribution, key: 'p50' | 'p90' | 'p99' | 'max'): string {
  return latency.count ? String(latency[key]) : '-';
}

function percent(value: number | null): string {
  if (value === null) return '-';
  return `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`;
}
