import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { loadAverage, otherBenchmarks } from '../deposits/cpu';
import { count, Machine, machineLine, printTable } from '../deposits/report';
import type { Distribution } from '../deposits/stats';
import type { CpuUsage } from './cpu';
import type { Merchant } from './funding';
import type { BenchOptions } from './options';
import type { PhaseResult } from './phase';
import { ROOT, SERVICE_DEFAULTS } from './settings';
import type { Verification } from './verify';

/** The goal: one worker broadcasts at least this many payouts a second. */
export const GOAL_BROADCAST_PER_SECOND = 50;

/** Issue 27's: payouts created a second, across the merchants and by one merchant alone. */
export const GOAL_CREATED_PER_SECOND = { merchants: 500, oneMerchant: 150 };

export interface CreationGoal {
  merchants: { goal: number; created: number | null; met: boolean };
  oneMerchant: { goal: number; created: number | null; met: boolean };
}

export function creationGoal(oneMerchant: number | null, merchants: number | null): CreationGoal {
  const judge = (goal: number, created: number | null) => ({
    goal,
    created,
    met: created !== null && created >= goal,
  });
  return {
    merchants: judge(GOAL_CREATED_PER_SECOND.merchants, merchants),
    oneMerchant: judge(GOAL_CREATED_PER_SECOND.oneMerchant, oneMerchant),
  };
}

export interface Quietness {
  loadAverage: number[];
  otherBenchmarks: string[];
}

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  quietness: { start: Quietness; end: Quietness | null };
  options: BenchOptions;
  service: typeof SERVICE_DEFAULTS & { blockTimeSeconds: number; confirmations: number };
  merchants: Array<Omit<Merchant, 'apiKey'>>;
  phases: PhaseResult[];
  goal: { broadcastPerSecond: number; oneWorker: number | null; met: boolean };
  creationGoal: CreationGoal;
  verification: Verification | null;
  warnings: string[];
  failures: string[];
  files: Record<string, string>;
}

// Benchmarks that compete for the same cores, by their entry point (this run's API and workers
// preload bench/api/exit-on-sigterm.js with --cpu-prof: not a match).
const OTHER_BENCHMARKS = ['bench/api/run.js', 'bench/deposits/run.ts'];

export function quietness(): Quietness {
  return { loadAverage: loadAverage(), otherBenchmarks: otherBenchmarks(OTHER_BENCHMARKS) };
}

export function fullMachineLine(machine: Machine, state: Quietness): string {
  const others = state.otherBenchmarks.length ? state.otherBenchmarks.join('; ') : 'none';
  return (
    `${machineLine(machine)}; load average ${state.loadAverage.map((l) => l.toFixed(2)).join(' ')}` +
    `; other benchmarks running: ${others}`
  );
}

export function printReport(report: Report): void {
  const service = report.service;
  console.log('');
  console.log(
    `Payouts on the devnet (anvil, a block every ${service.blockTimeSeconds} s, confirmations ` +
      `${service.confirmations}): built API + worker(s), default configuration: ` +
      `PAYOUT_SEND_CONCURRENCY ${service.PAYOUT_SEND_CONCURRENCY}, PAYOUT_TRACK_INTERVAL_MS ` +
      `${service.PAYOUT_TRACK_INTERVAL_MS}, DEPOSIT_SCAN_INTERVAL_MS ` +
      `${service.DEPOSIT_SCAN_INTERVAL_MS}, DATABASE_POOL_SIZE ${service.DATABASE_POOL_SIZE}, ` +
      `LOG_LEVEL ${service.LOG_LEVEL}; ${report.options.concurrency} requests in flight`,
  );
  printTable([
    [
      'phase',
      'workers',
      'payouts',
      'created/s',
      'create p50 ms',
      'p99 ms',
      'not created',
      'broadcast/s',
      'steady/s',
      'peak/s',
      'Completed/s',
      'other cores',
    ],
    ...report.phases.map((phase) => [
      phase.name,
      String(phase.workers),
      count(phase.payouts),
      value(phase.api.perSecond),
      String(phase.api.latencyMs.p50),
      String(phase.api.latencyMs.p99),
      String(phase.api.failed),
      value(phase.broadcast.perSecond),
      value(phase.broadcast.steadyPerSecond),
      String(phase.broadcast.peakPerSecond),
      value(phase.completed.perSecond),
      phase.cpu.otherCores === null ? '?' : phase.cpu.otherCores.toFixed(2),
    ]),
  ]);
  console.log('');
  console.log('Latency from the request (p50 / p90 / max)');
  printTable([
    ['phase', '-> broadcast ms', '-> Completed ms', '-> mined, blocks', '-> Completed, blocks'],
    ...report.phases.map((phase) => [
      phase.name,
      spread(phase.latencyMs.toBroadcast),
      spread(phase.latencyMs.toCompleted),
      spread(phase.blocks.toMined),
      spread(phase.blocks.toCompleted),
    ]),
  ]);
  console.log('');
  for (const phase of report.phases) printDetails(phase);
  printGoal(report.goal);
  printCreationGoal(report.creationGoal);
  printVerification(report.verification);
  // The load average before the run: at the end it is mostly the run's own.
  console.log(fullMachineLine(report.machine, report.quietness.start));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
  for (const failure of report.failures) console.log(`FAIL: ${failure}`);
}

/** The JSON without per-request lists (the payouts stay in the database until the next run). */
export function writeReport(file: string, report: Report): void {
  const slim = {
    ...report,
    phases: report.phases.map((phase) => ({ ...phase, records: undefined, ids: undefined })),
  };
  writeFileSync(file, `${JSON.stringify(slim, null, 2)}\n`);
  console.log(`Results: ${relative(ROOT, file)}`);
}

function printDetails(phase: PhaseResult): void {
  const stages = phase.stagesMs;
  console.log(
    `${phase.name}: stages p50 (p90) ms: request -> 201 ${median(stages.requestToAnswered)}, ` +
      `201 -> claim starts ${median(stages.answeredToSigned)}, claim -> broadcast ` +
      `${median(stages.signedToBroadcast)}, broadcast -> mined ${median(stages.broadcastToMined)}, ` +
      `mined -> Completed ` +
      `${median(stages.minedToCompleted)}`,
  );
  console.log(
    `  last broadcast ${phase.broadcast.seconds ?? '-'} s and last Completed ` +
      `${phase.completed.seconds ?? '-'} s after the first request; API took them in ` +
      `${phase.api.seconds ?? '-'} s; re-broadcast ${phase.rebroadcast}, replaced ${phase.replaced}`,
  );
  console.log(
    `  broadcasts per second: ${phase.timeline.broadcast.join(' ')} (after the last 201: ` +
      `${phase.broadcast.afterLoadPerSecond ?? '-'}/s); Completed per second: ` +
      phase.timeline.completed.join(' '),
  );
  console.log(`  CPU: ${formatCpu(phase.cpu)}`);
  console.log(`  CPU per payout: ${cpuPerPayout(phase, phase.cpu)}`);
  console.log(
    `  while creating (${phase.creationCpu.seconds} s): ${cpuPerPayout(phase, phase.creationCpu)}`,
  );
  const rpc = Object.entries(phase.rpcPerPayout)
    .filter(([, perPayout]) => perPayout > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([method, perPayout]) => `${method} ${perPayout}`)
    .join(', ');
  console.log(`  worker RPC per payout (anvil's log): ${rpc || '-'}`);
  console.log(
    `  PostgreSQL sessions of the API and workers (${phase.sessions.samples} samples): ` +
      `${phase.sessions.busy} busy on average, most often:`,
  );
  for (const state of phase.sessions.top) {
    console.log(`    ${state.average.toFixed(2).padStart(6)}  ${state.state}: ${state.query}`);
  }
  for (const error of phase.api.errors) console.log(`  not created: ${error}`);
  if (phase.stalled) console.log(`  STALLED before all were Completed`);
  console.log('');
}

function printGoal(goal: Report['goal']): void {
  console.log(
    `Goal: >= ${goal.broadcastPerSecond} payouts/s broadcast by one worker: ` +
      `${goal.oneWorker ?? '-'}/s ${goal.met ? 'PASS' : 'FAIL'}`,
  );
}

function printCreationGoal(goal: CreationGoal): void {
  const line = (what: string, part: CreationGoal['merchants']) =>
    `${what} >= ${part.goal}/s: ${part.created ?? '-'}/s ${part.met ? 'PASS' : 'FAIL'}`;
  console.log(
    `Goal (created): ${line('across the merchants', goal.merchants)}; ` +
      `${line('one merchant', goal.oneMerchant)}`,
  );
}

function printVerification(check: Verification | null): void {
  if (!check) return;
  if (!check.failures.length) {
    console.log(
      `Verification: OK (${count(check.payouts)} payouts Completed, each with one Transfer ` +
        `from the hot wallet of its net_amount to its address; hot wallet down ` +
        `${check.hotWalletDecrease} USDT = sum of net_amount; for each of ${check.merchants} ` +
        `merchants ledger held 0, available = funded - sum of amount: in all held ` +
        `${check.ledger.held}, available ${check.ledger.available})`,
    );
    return;
  }
  console.log('Verification: FAIL');
  for (const failure of check.failures) console.log(`  - ${failure}`);
}

function formatCpu(cpu: CpuUsage): string {
  const parts = Object.entries(cpu.ms).map(([name, ms]) => `${name} ${ms ?? '?'} ms`);
  const other = cpu.otherCores === null ? '?' : cpu.otherCores.toFixed(2);
  return `${parts.join(', ')} over ${cpu.seconds} s; other processes ${other} cores`;
}

/** A single-threaded process cannot go faster than 1000 / (its CPU ms per payout) a second. */
function cpuPerPayout(phase: PhaseResult, cpu: CpuUsage): string {
  const payouts = Math.max(phase.api.count, 1);
  const workers = Object.entries(cpu.ms)
    .filter(([name]) => name.startsWith('worker'))
    .reduce((sum, [, ms]) => sum + (ms ?? 0), 0);
  const per = (ms: number | null) => (ms === null ? '?' : (ms / payouts).toFixed(1));
  return (
    `api ${per(cpu.ms.api)} ms, workers ${per(workers)} ms, PostgreSQL ` +
    `${per(cpu.ms.postgres)} ms, anvil ${per(cpu.ms.anvil)} ms`
  );
}

function spread(d: Distribution): string {
  return d.count ? `${d.p50} / ${d.p90} / ${d.max}` : '-';
}

function median(d: Distribution): string {
  return d.count ? `${d.p50} (${d.p90})` : '-';
}

function value(number: number | null): string {
  return number === null ? '-' : number.toFixed(1);
}

/**
 * Another benchmark, or a load average above 1 before we start anything, makes every figure low
 * and noisy. At the end the load average is mostly this run's own: each phase's "other cores"
 * says instead how busy the rest of the machine was.
 */
export function quietnessWarnings(state: Quietness, when: 'start' | 'end'): string[] {
  const warnings = state.otherBenchmarks.map((line) => `another benchmark at the ${when}: ${line}`);
  const [oneMinute] = state.loadAverage;
  if (when === 'start' && oneMinute > 1) {
    warnings.push(`load average ${oneMinute.toFixed(2)} at the start`);
  }
  return warnings;
}
