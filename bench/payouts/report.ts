import type { CpuUsage } from '../kit/cpu';
import type { FundedMerchant } from '../kit/funding';
import { count, fullMachineLine, Machine, printTable, Quietness } from '../kit/report';
import type { Distribution } from '../kit/stats';
import type { PhaseResult } from './phase';
import type { Verification } from './verify';

/**
 * The service's own defaults for what drives payout throughput (README, and
 * libs/common/src/config/chain-variables.ts). The benchmark never sets them (kit/settings.ts
 * removes any the shell carries): printed so a reader knows what the figures were measured with.
 */
export const SERVICE_DEFAULTS = {
  PAYOUT_SEND_CONCURRENCY: 8,
  PAYOUT_TRACK_INTERVAL_MS: 1000,
  DEPOSIT_SCAN_INTERVAL_MS: 3000,
  DATABASE_POOL_SIZE: 20,
  LOG_LEVEL: 'info',
} as const;

/** One of issue 27's targets, judged on the phase it is about. */
export interface TargetResult {
  target: string;
  phase: string | null;
  value: number | null;
  unit: '/s' | 'x';
  goal: number;
  met: boolean;
  /** Why there is no value. */
  note?: string;
}

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  quietness: { start: Quietness; end: Quietness };
  options: Record<string, unknown>;
  service: typeof SERVICE_DEFAULTS & { blockTimeSeconds: number; confirmations: number };
  merchants: Array<Omit<FundedMerchant, 'apiKey'>>;
  phases: PhaseResult[];
  targets: TargetResult[];
  verification: Verification;
  warnings: string[];
  failures: string[];
  files: Record<string, string>;
}

/** Issue 27's targets, each judged on the phase it is about (bench/README.md). */
export function judgeTargets(phases: PhaseResult[], merchants: number): TargetResult[] {
  // The second worker is compared with the phase of the same creation and one worker.
  const two = phases.find((phase) => phase.role === 'two workers');
  const one = phases.find(
    (phase) => phase.role === 'merchants' && phase.creation === two?.creation,
  );
  const [oneRate, twoRate] = [workerRate(one), workerRate(two)];
  const ratio = oneRate.value && twoRate.value !== null ? twoRate.value / oneRate.value : null;
  const least = (a: number | null, b: number | null) =>
    a === null || b === null ? null : Math.min(a, b);
  const of = (role: PhaseResult['role']) => phases.filter((phase) => phase.role === role);
  return [
    ...of('one merchant').map((phase) =>
      judge(
        'one merchant >= 150/s created and broadcast',
        phase,
        least(phase.api.perSecond, phase.broadcast.perSecond),
        150,
      ),
    ),
    ...of('merchants').map((phase) =>
      judge(`created >= 500/s across ${merchants} merchants`, phase, phase.api.perSecond, 500),
    ),
    judge(
      `one worker >= 150/s broadcast, ${merchants} merchants`,
      one,
      oneRate.value,
      150,
      oneRate.note,
    ),
    judge(
      'two workers >= 1.7x one worker',
      two,
      ratio && Math.round(ratio * 100) / 100,
      1.7,
      oneRate.note ?? twoRate.note,
    ),
  ];
}

function judge(
  target: string,
  phase: PhaseResult | undefined,
  value: number | null,
  goal: number,
  note?: string,
): TargetResult {
  const unit = target.includes('x one') ? 'x' : '/s';
  const met = value !== null && value >= goal;
  return {
    target,
    phase: phase?.name ?? null,
    value,
    unit,
    goal,
    met,
    note: value === null ? (note ?? 'not measured') : undefined,
  };
}

/**
 * The workers' rate after the last answer (figures.ts), when that window held at least half the
 * phase's payouts: else the API's creation, not the workers, set the pace, and it is no measure.
 */
function workerRate(phase: PhaseResult | undefined): { value: number | null; note?: string } {
  if (!phase) return { value: null, note: 'phase not run' };
  const after = phase.broadcast.afterCreation;
  if (after.perSecond !== null && after.count * 2 >= phase.api.count)
    return { value: after.perSecond };
  return {
    value: null,
    note: `only ${after.count} of ${phase.api.count} broadcast after the last answer`,
  };
}

export function printReport(report: Report): void {
  const service = report.service;
  console.log('');
  console.log(
    `Payouts on the devnet (anvil, a block every ${service.blockTimeSeconds} s, confirmations ` +
      `${service.confirmations}): built API + worker(s), default configuration: ` +
      Object.entries(SERVICE_DEFAULTS)
        .map(([name, value]) => `${name} ${value}`)
        .join(', ') +
      `; ${report.options.concurrency} requests in flight at most, batches of up to ${report.options.batchSize}`,
  );
  printTable([
    [
      'phase',
      'workers',
      'payouts',
      'created/s',
      'request p50 ms',
      'p99 ms',
      'not created',
      'broadcast/s',
      'steady/s',
      'peak/s',
      'after creation/s',
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
      value(phase.broadcast.afterCreation.perSecond),
      value(phase.completed.perSecond),
      phase.cpu.otherCores === null ? '?' : phase.cpu.otherCores.toFixed(2),
    ]),
  ]);
  console.log('\nLatency from the request (p50 / p90 / max)');
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
  console.log("Issue 27's targets, each judged on its phase (bench/README.md):");
  printTable([
    ['target', 'phase', 'measured', ''],
    ...report.targets.map((t) => [
      t.target,
      t.phase ?? '-',
      t.value === null ? `- (${t.note})` : `${t.value.toFixed(t.unit === 'x' ? 2 : 1)}${t.unit}`,
      t.met ? 'PASS' : 'FAIL',
    ]),
  ]);
  printVerification(report.verification);
  // The load average before the run: at the end it is mostly the run's own.
  console.log(fullMachineLine(report.machine, report.quietness.start));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
  for (const failure of report.failures) console.log(`FAIL: ${failure}`);
}

function printDetails(phase: PhaseResult): void {
  const stages = phase.stagesMs;
  const after = phase.broadcast.afterCreation;
  console.log(
    `${phase.name}: stages p50 (p90) ms: request -> 201 ${median(stages.requestToAnswered)}, ` +
      `201 -> claim starts ${median(stages.answeredToSigned)}, claim -> broadcast ` +
      `${median(stages.signedToBroadcast)}, broadcast -> mined ${median(stages.broadcastToMined)}, ` +
      `mined -> Completed ${median(stages.minedToCompleted)}`,
  );
  console.log(
    `  last broadcast ${phase.broadcast.seconds ?? '-'} s and last Completed ` +
      `${phase.completed.seconds ?? '-'} s after the first request; API took them in ` +
      `${phase.api.seconds ?? '-'} s (${phase.api.requests} requests); re-broadcast ` +
      `${phase.rebroadcast}, replaced ${phase.replaced}`,
  );
  console.log(
    `  broadcasts per second: ${phase.timeline.broadcast.join(' ')} (after the last answer: ` +
      `${after.count} in ${after.seconds ?? '-'} s, ${value(after.perSecond)}/s); Completed per second: ` +
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

function printVerification(check: Verification): void {
  if (!check.failures.length) {
    console.log(
      `Verification: OK (${count(check.payouts)} payouts Completed, each with one Transfer ` +
        `from the hot wallet of its net_amount to its address; hot wallet down ` +
        `${check.hotWalletDecrease} USDT = sum of net_amount; for each of ${check.merchants} ` +
        `merchants ledger held 0, available = funded - sum of amount, amounts as asked: in all held ` +
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
  return `api ${per(cpu.ms.api)} ms, workers ${per(workers)} ms, PostgreSQL ${per(cpu.ms.postgres)} ms, anvil ${per(cpu.ms.anvil)} ms`;
}

const spread = (d: Distribution) => (d.count ? `${d.p50} / ${d.p90} / ${d.max}` : '-');
const median = (d: Distribution) => (d.count ? `${d.p50} (${d.p90})` : '-');
const value = (number: number | null) => (number === null ? '-' : number.toFixed(1));
