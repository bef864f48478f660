import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Invariant } from './checks';
import type { HeapJudgement } from './heap';
import type { InjectedFault } from './nemesis';

export interface SoakReport {
  seed: number;
  minutes: number;
  startedAt: string;
  durationSeconds: { total: number; setup: number; load: number; drain: number; checks: number };
  /** Seconds per step of the boot (and the CLI build beside it). */
  boot: Record<string, number>;
  /** Seconds of the load: until the nemesis stopped, then for the steps under way to end. */
  load: Record<string, number>;
  /** Seconds from the drain's start until each of its conditions first held. */
  drain: Record<string, number>;
  passed: boolean;
  faults: Array<InjectedFault & { at: string; offsetSeconds: number }>;
  invariants: Invariant[];
  /** Invariants that failed at some moment of the run (the continuous checks). */
  violationsDuringRun: Array<{ at: string; name: string; detail: string }>;
  figures: Record<string, unknown>;
  /** Per service process, its stdout and stderr (every incarnation's), relative to the report. */
  logs: Record<string, string>;
  /** Per process: the heap after a forced GC (judged) and RSS (reported only). */
  memory: { heapAfterGc: Record<string, HeapJudgement>; rss: Record<string, RssSlope> };
}

interface RssSlope {
  slopeMbPerMin: number | null;
  firstMb: number;
  fromMb: number;
  toMb: number;
  minutes: number;
  restarts: number;
}

/** report.json and report.md in the run's results folder. */
export function writeReport(dir: string, report: SoakReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), JSON.stringify(report, null, 2));
  writeFileSync(join(dir, 'report.md'), markdown(report));
}

function markdown(report: SoakReport): string {
  const lines = [
    `# Chaos soak ${report.passed ? 'passed' : 'FAILED'}`,
    '',
    `Seed ${report.seed} (\`npm run soak -- --minutes ${report.minutes} --seed ${report.seed}\` with the ` +
      `same --faults and --fault-gap replays the choices), started ${report.startedAt}; ${report.durationSeconds.total} s in all ` +
      `(setup ${report.durationSeconds.setup} s, load under the nemesis ${report.durationSeconds.load} s, ` +
      `drain ${report.durationSeconds.drain} s, checks ${report.durationSeconds.checks} s).`,
    '',
    '## Boot',
    '',
    '| Step | Seconds |',
    '| --- | --- |',
    ...Object.entries(report.boot).map(([step, secs]) => `| ${step} | ${secs} |`),
    '',
    '## Load and drain',
    '',
    '| Step | Seconds |',
    '| --- | --- |',
    ...Object.entries(report.load).map(([step, secs]) => `| load: ${step} | ${secs} |`),
    ...Object.entries(report.drain).map(([step, secs]) => `| drain: ${step} | ${secs} |`),
    '',
    '## Invariants',
    '',
    '| Invariant | Held | Detail |',
    '| --- | --- | --- |',
    ...report.invariants.map(
      (invariant) =>
        `| ${invariant.name} | ${invariant.held ? 'yes' : '**NO**'} | ${invariant.detail.replace(/\|/g, '/')} |`,
    ),
    '',
    `Violations seen by the continuous checks during the run: ${report.violationsDuringRun.length}.`,
    ...report.violationsDuringRun.slice(0, 20).map((v) => `- ${v.at} ${v.name}: ${v.detail}`),
    '',
    `## Faults injected (${report.faults.length})`,
    '',
    `By kind: ${Object.entries(
      report.faults.reduce<Record<string, number>>((counts, fault) => {
        counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
        return counts;
      }, {}),
    )
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}.`,
    '',
    '| At | + s | Fault | Target | Whole again after (s) | Detail |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.faults.map(
      (fault) =>
        `| ${fault.at} | ${fault.offsetSeconds} | ${fault.kind} | ${fault.target} | ${fault.recoverySeconds} | ${fault.detail ?? ''} |`,
    ),
    '',
    '## Figures',
    '',
    '```json',
    JSON.stringify(report.figures, null, 2),
    '```',
    '',
    '## Memory: heap after a forced GC (judged), longest-lived incarnation after a 3-minute warm-up',
    '',
    '| Process | MB at warm-up → end | Slope (MB/min) | Samples | Minutes | Restarts | Failed samples |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(report.memory.heapAfterGc).map(
      ([name, h]) =>
        `| ${name} | ${h.fromMb} → ${h.toMb} | ${h.judged ? h.slopeMbPerMin : `not judged: ${h.why}`} | ${h.samples} | ${h.minutes} | ${h.restarts} | ${h.failedSamples} |`,
    ),
    '',
    '## Memory: RSS (reported, not judged), longest-lived incarnation',
    '',
    '| Process | MB first → after warm-up → end | Slope after warm-up (MB/min) | Minutes | Restarts |',
    '| --- | --- | --- | --- | --- |',
    ...Object.entries(report.memory.rss).map(
      ([name, m]) =>
        `| ${name} | ${m.firstMb} → ${m.fromMb} → ${m.toMb} | ${m.slopeMbPerMin ?? 'n/a'} | ${m.minutes} | ${m.restarts} |`,
    ),
    '',
    '## Logs',
    '',
    "Each service process's stdout and stderr, its restarts appended (a line marks each start), beside this report; the soak's own in soak.log.",
    '',
    ...Object.entries(report.logs).map(([name, file]) => `- ${name}: ${file}`),
    '',
  ];
  return lines.join('\n');
}
