import { relative } from 'node:path';
import {
  count,
  fullMachineLine,
  type Machine,
  type Quietness,
  table,
  writeJson,
  writeMarkdown,
} from '../kit/report';
import type { BenchOptions } from './options';
import type { ReconcileProfile } from './profile';
import type { ReconcileResult } from './reconcile';
import { ROOT } from '../kit/settings';
import type { SweepResult } from './sweeps';

/** Issue 24's targets. */
export const TARGETS = { sweepWallMs: 60_000, gasPerAddress: 45_000, reconcileMs: 10_000 };

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  quietness: { start: Quietness; end: Quietness | null };
  options: BenchOptions;
  /** What the service ran with beyond its defaults. */
  service: {
    setup: 'default' | 'tuned';
    blockTimeSeconds: number;
    confirmations: number;
    treasurySweepIntervalMs: number;
    treasuryFile: Record<string, unknown>;
  };
  sweeps: SweepResult | null;
  reconcile: ReconcileResult | null;
  targets: { sweepWall: boolean | null; gasPerAddress: boolean | null; reconcile: boolean | null };
  warnings: string[];
  failures: string[];
  files: Record<string, string>;
}

export function targetsOf(sweeps: SweepResult | null, reconcile: ReconcileResult | null) {
  const slowest = reconcile?.runs.length ? Math.max(...reconcile.runs.map((run) => run.ms)) : null;
  return {
    sweepWall: sweeps ? sweeps.wallMs <= TARGETS.sweepWallMs : null,
    gasPerAddress: sweeps ? sweeps.gasPerAddress <= TARGETS.gasPerAddress : null,
    reconcile: slowest === null ? null : slowest <= TARGETS.reconcileMs,
  };
}

export function printReport(report: Report): void {
  console.log('');
  console.log(lines(report).join('\n'));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
  for (const failure of report.failures) console.log(`FAIL: ${failure}`);
}

/** The JSON (every sweep transaction included) and the same summary as Markdown beside it. */
export function writeReport(base: string, report: Report): void {
  writeJson(`${base}.json`, report);
  writeMarkdown(`${base}.md`, `bench:treasury, ${report.startedAt}`, [
    ...lines(report),
    ...report.warnings.map((warning) => `WARNING: ${warning}`),
    ...report.failures.map((failure) => `FAIL: ${failure}`),
  ]);
}

function lines(report: Report): string[] {
  const out: string[] = [];
  const { service } = report;
  out.push(
    `Treasury on the devnet (anvil, a block every ${service.blockTimeSeconds} s, confirmations ` +
      `${service.confirmations}), built API + worker, ${service.setup} setup: ` +
      `TREASURY_SWEEP_INTERVAL_MS ${service.treasurySweepIntervalMs}, TREASURY_FILE ` +
      JSON.stringify(service.treasuryFile),
  );
  const sweeps = report.sweeps;
  if (sweeps) {
    out.push('');
    out.push(
      `Sweeps: ${count(sweeps.addresses)} deposit addresses (sessions through the API, payments ` +
        `sent in ${seconds(sweeps.paymentMs.send)}, all Paid ${seconds(sweeps.paymentMs.toAllPaid)} ` +
        'after)',
    );
    out.push(
      ...table([
        ['figure', 'value', 'target'],
        [
          'first sweep signed -> last Completed',
          seconds(sweeps.wallMs),
          mark(report.targets.sweepWall, `<= ${TARGETS.sweepWallMs / 1000} s`),
        ],
        [
          'gas per address (receipts)',
          count(sweeps.gasPerAddress),
          mark(report.targets.gasPerAddress, `<= ${count(TARGETS.gasPerAddress)}`),
        ],
        [
          'gas per address, per batch',
          `${count(sweeps.gasPerAddressByBatch.min)}-${count(sweeps.gasPerAddressByBatch.max)}`,
          '',
        ],
        ['sweeps (batches) / transactions sent', `${sweeps.sweeps} / ${sweeps.attempts}`, ''],
        ['blocks they were mined in', String(sweeps.blocks), ''],
        ['  signing the pass (first -> last signed)', seconds(sweeps.stagesMs.signing), ''],
        ['  first signed -> last mined', seconds(sweeps.stagesMs.signedToLastMined), ''],
        [
          '  last mined -> last Completed (booked)',
          seconds(sweeps.stagesMs.lastMinedToCompleted),
          '',
        ],
        ['all Paid -> first sweep signed (next pass)', seconds(sweeps.paidToFirstSignedMs), ''],
      ]),
    );
    const check = sweeps.verification;
    out.push(
      check.failures.length
        ? 'Sweep verification: FAIL'
        : `Sweep verification: OK (${count(check.emptyAddresses)} addresses empty on chain; hot ` +
            `wallet +${check.hotWalletIncrease} base units = the sum paid = the books' sweeps; ` +
            `${check.feesBookedExactly} sweep fees booked to the wei of their receipts)`,
    );
  }
  const reconcile = report.reconcile;
  if (reconcile) {
    out.push('');
    out.push(
      `Reconciliation: ${count(reconcile.depositAddresses)} deposit addresses with activity ` +
        `(${count(reconcile.inserted.sessions)} of them: ${reconcile.inserted.note}); each run a ` +
        `new CLI process, spawn to exit (merchants:list, the same process doing one query: ` +
        `${seconds(reconcile.cliBaselineMs)}, CPU ${seconds(reconcile.cliBaselineCpuMs)})`,
    );
    out.push(
      ...table([
        ['run', 'command', 'run itself', 'CPU', 'exit', 'USDT addresses', 'differences', 'target'],
        ...reconcile.runs.map((run, index) => [
          String(index + 1),
          seconds(run.ms),
          seconds(run.serviceMs),
          seconds(run.cpuMs),
          String(run.exitCode),
          count(run.rows.find((row) => row.currency === 'USDT')?.addresses ?? 0),
          run.rows.map((row) => `${row.currency} ${row.difference}`).join(', '),
          mark(run.ms <= TARGETS.reconcileMs, `<= ${TARGETS.reconcileMs / 1000} s`),
        ]),
      ]),
    );
    out.push(...profileLines(reconcile.profile));
  }
  out.push('');
  out.push(fullMachineLine(report.machine, report.quietness.start));
  out.push(`git ${report.git ?? '?'}`);
  return out;
}

function seconds(ms: number | null): string {
  return ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`;
}

function mark(met: boolean | null, target: string): string {
  if (met === null) return target;
  return met ? `${target}: met` : `${target}  << BELOW TARGET`;
}

function profileLines(profile: ReconcileProfile): string[] {
  const { multicalls } = profile;
  const sizes = multicalls.callsPerBatch;
  return [
    '',
    `Profiled run (node --cpu-prof, RPC through a counting proxy; not in the figures): ` +
      `${seconds(profile.ms)}, exit ${profile.exitCode}`,
    `  RPC requests: ${Object.entries(profile.rpcMethods)
      .map(([method, requests]) => `${method} ${requests}`)
      .join(', ')}; ${multicalls.batches} Multicall3 batches of ` +
      `${sizes.length ? `${Math.min(...sizes)}-${Math.max(...sizes)}` : '-'} calls, ` +
      `${profile.maxInFlight} in flight at most, answered in ${multicalls.answerMs.p50} ms ` +
      `(p50), ${multicalls.answerMs.max} ms (max)`,
    `  CPU ${seconds(profile.cpuTotalMs)} sampled; busiest modules (self): ` +
      profile.topModules.map((module) => `${module.name} ${module.ms} ms`).join(', '),
    '  busiest functions (self):',
    ...profile.topFunctions.map((fn) => `    ${String(fn.ms).padStart(6)} ms  ${fn.name}`),
    `  profile: ${profile.cpuProfile ? relative(ROOT, profile.cpuProfile) : 'none written'}`,
  ];
}
