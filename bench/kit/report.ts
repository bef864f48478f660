import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { relative } from 'node:path';
import { loadAverage, otherBenchmarks } from './cpu';
import { ROOT } from './settings';

/** What every report carries: the machine, the commit, how quiet the machine was; and output. */

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  /** The chain the run used (anvil's version), or what stood in for it. */
  anvil: string;
}

export function describeMachine(postgres: string, anvil: string): Machine {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    postgres,
    anvil,
  };
}

export function machineLine(machine: Machine): string {
  return (
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; ` +
    `Node ${machine.node}; PostgreSQL ${machine.postgres}; ${machine.anvil}`
  );
}

export function gitDescription(cwd = ROOT): string | null {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' });
  const status = spawnSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' });
  if (head.status !== 0) return null;
  return `${head.stdout.trim()}${status.stdout.trim() ? ' (uncommitted changes)' : ''}`;
}

export interface Quietness {
  loadAverage: number[];
  otherBenchmarks: string[];
}

// Benchmarks and test runs that compete for the same cores, by their entry point.
const OTHER_BENCHMARKS = [
  'bench/api/run',
  'bench/deposits/run.ts',
  'bench/payouts/run.ts',
  'bench/webhooks/run.ts',
  'bench/treasury/run.ts',
  'node_modules/.bin/jest',
];

export function quietness(): Quietness {
  return { loadAverage: loadAverage(), otherBenchmarks: otherBenchmarks(OTHER_BENCHMARKS) };
}

export function quietnessWarnings(state: Quietness, when: 'start' | 'end'): string[] {
  const warnings = state.otherBenchmarks.map((line) => `another benchmark at the ${when}: ${line}`);
  const [oneMinute] = state.loadAverage;
  if (when === 'start' && oneMinute > 1) {
    warnings.push(`load average ${oneMinute.toFixed(2)} at the start`);
  }
  return warnings;
}

export function fullMachineLine(machine: Machine, state: Quietness): string {
  const others = state.otherBenchmarks.length ? state.otherBenchmarks.join('; ') : 'none';
  return (
    `${machineLine(machine)}; load average ${state.loadAverage.map((l) => l.toFixed(2)).join(' ')}` +
    `; other benchmarks running: ${others}`
  );
}

/** Columns padded to their widest cell: the first left-aligned, the others right-aligned. */
export function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]),
      )
      .join('  ');
  return [
    format(rows[0]),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.slice(1).map(format),
  ];
}

export function printTable(rows: string[][]): void {
  for (const line of table(rows)) console.log(line);
}

/** A Markdown table: the first column left-aligned, the others right-aligned. */
export function markdownTable(rows: string[][]): string[] {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(rows[0]),
    line(rows[0].map((_, column) => (column === 0 ? '---' : '--:'))),
    ...rows.slice(1).map(line),
  ];
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** The JSON report, pretty-printed, and where it is. */
export function writeJson(file: string, report: unknown): void {
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Results: ${relative(ROOT, file)}`);
}

/** The printed summary as a Markdown file beside the JSON (for a dated bench/results/ note). */
export function writeMarkdown(file: string, title: string, lines: string[]): void {
  writeFileSync(file, [`# ${title}`, '', '```', ...lines, '```', ''].join('\n'));
  console.log(`Summary: ${relative(ROOT, file)}`);
}
