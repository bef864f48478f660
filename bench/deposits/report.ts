import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { relative } from 'node:path';
import type { CpuUsage } from './cpu';
import type { LatencyResult } from './latency';
import type { BenchOptions } from './options';
import { ROOT } from './settings';
import type { TickSql } from './sql-trace';
import type { ThroughputResult } from './throughput';
import type { MerchantCheck } from './verify';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  anvil: string;
}

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  options: BenchOptions;
  latency: LatencyResult[];
  throughput: ThroughputResult | null;
  verification: MerchantCheck[];
  warnings: string[];
  failures: string[];
  files: Record<string, string | null>;
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

export function gitDescription(): string | null {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  return `${head.stdout.trim()}${status.stdout.trim() ? ' (uncommitted changes)' : ''}`;
}

export function printReport(report: Report): void {
  console.log('');
  printLatency(report.latency);
  if (report.throughput) printThroughput(report.throughput);
  printVerification(report.verification);
  console.log(machineLine(report.machine));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
}

/** The JSON without the per-session lists (they are in the database until the next run). */
export function writeReport(file: string, report: Report): void {
  const slim = {
    ...report,
    latency: report.latency.map((result) => ({ ...result, paid: undefined })),
    throughput: report.throughput && { ...report.throughput, paidSessions: undefined },
  };
  writeFileSync(file, `${JSON.stringify(slim, null, 2)}\n`);
  console.log(`Results: ${relative(ROOT, file)}`);
}

function printLatency(results: LatencyResult[]): void {
  if (!results.length) return;
  console.log('Detection latency: block mined -> session Paid in PostgreSQL (confirmations 1)');
  const rows = [
    [
      'scan interval',
      'payments',
      'p50 ms',
      'p90 ms',
      'max ms',
      'wait for tick p50',
      'tick p50',
      'tick first/last 5',
      'ticks',
      'RPC/tick: head',
      'getLogs',
      'getBlock',
      'other cores',
    ],
    ...results.map((result) => [
      `${result.scanIntervalMs} ms`,
      String(result.payments),
      String(result.latencyMs.p50),
      String(result.latencyMs.p90),
      String(result.latencyMs.max),
      String(result.waitForTickMs.p50),
      String(result.tickMs.p50),
      `${result.tickGrowthMs.first} / ${result.tickGrowthMs.last}`,
      String(result.rpc.ticks),
      String(result.rpc.perTick.eth_blockNumber),
      String(result.rpc.perTick.eth_getLogs),
      String(result.rpc.perTick.eth_getBlockByNumber),
      formatCores(result.cpu.otherCores),
    ]),
  ];
  printTable(rows);
  for (const result of results) printSql(`  ${result.scanIntervalMs} ms ticks`, result.sql);
  console.log('');
}

function printThroughput(result: ThroughputResult): void {
  const blocks = result.blocks;
  console.log(
    `Throughput: ${count(result.sessions)} open sessions, ${count(result.paid)} paid in ` +
      `${blocks.length} blocks (${blocks.join(', ')} transfers) mined within ${result.burstMs} ms; ` +
      `scan interval ${result.scanIntervalMs} ms`,
  );
  console.log(
    `  last block mined -> first Paid ${result.firstPaidMs ?? '-'} ms, all ${count(result.paid)} ` +
      `Paid ${result.allPaidMs ?? '(never)'} ms: ${result.paymentsPerSecond ?? '-'} payments/s`,
  );
  const ticks = result.ticks
    .map((tick) => `${tick.sessions} (start +${tick.startedMs} ms, seen +${tick.seenMs} ms)`)
    .join('; ');
  console.log(
    `  settling ticks: ${ticks}; ${result.processingPerSecond ?? '-'} payments/s of tick time`,
  );
  console.log(`  CPU in the window: ${formatCpu(result.cpu)}`);
  const rpc = result.rpc;
  console.log(
    `  worker RPC in the window: ${rpc.ticks} ticks, ${rpc.byMethod.eth_blockNumber} ` +
      `eth_blockNumber, ${rpc.byMethod.eth_getLogs} eth_getLogs, ` +
      `${rpc.byMethod.eth_getBlockByNumber} eth_getBlockByNumber`,
  );
  printSql('  settling ticks', result.sql);
  const after = result.afterDrain;
  console.log(
    `  idle ticks after the drain (${count(result.paid)} transfers in the reorg window): ` +
      `${after.rpc.ticks} ticks, ${after.rpc.perTick.eth_getBlockByNumber} eth_getBlockByNumber ` +
      `per tick, ${perTick(after.cpu.ms.worker, after.rpc.ticks)} ms worker CPU and ` +
      `${perTick(after.cpu.ms.postgres, after.rpc.ticks)} ms PostgreSQL CPU per tick`,
  );
  printSql('  idle ticks', after.sql);
  console.log('');
}

function printSql(label: string, sql: TickSql | null): void {
  if (!sql || !sql.ticks) return;
  console.log(
    `${label} (--trace-sql): ${sql.ticks} ticks, ${count(sql.statements)} statements, ` +
      `${Math.round(sql.sqlMs)} ms SQL of ${Math.round(sql.transactionMs)} ms in transactions`,
  );
  const busiest = sql.busiest;
  if (!busiest || busiest.statements < 50) return;
  console.log(
    `    busiest tick: ${count(busiest.statements)} statements, ${Math.round(busiest.sqlMs)} ms ` +
      `SQL of ${Math.round(busiest.ms)} ms; by statement (count, ms):`,
  );
  for (const entry of busiest.byStatement) {
    console.log(
      `      ${String(entry.count).padStart(6)} ${String(Math.round(entry.ms)).padStart(6)}  ` +
        entry.statement,
    );
  }
}

function printVerification(checks: MerchantCheck[]): void {
  const failed = checks.filter((check) => check.failures.length);
  const payments = checks.reduce((sum, check) => sum + check.expectedPaid, 0);
  if (!failed.length) {
    console.log(
      `Verification: OK (${checks.length} merchants, ${count(payments)} payments: each session ` +
        `Paid once with one Confirmed transfer of the amount sent; ledger = sum of net_amount)`,
    );
    return;
  }
  console.log('Verification: FAILED');
  for (const check of failed) {
    for (const failure of check.failures) console.log(`  - ${check.merchantId}: ${failure}`);
  }
}

/** Columns padded to their widest cell: the first left-aligned, the others right-aligned. */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]),
      )
      .join('  ');
  console.log(format(rows[0]));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows.slice(1)) console.log(format(row));
}

function formatCpu(cpu: CpuUsage): string {
  return (
    `worker ${cpu.ms.worker ?? '?'} ms, PostgreSQL backends ${cpu.ms.postgres} ms, anvil ` +
    `${cpu.ms.anvil ?? '?'} ms, benchmark ${cpu.ms.bench} ms over ${cpu.seconds} s; ` +
    `other processes ${formatCores(cpu.otherCores)} cores`
  );
}

function formatCores(cores: number | null): string {
  return cores === null ? '?' : cores.toFixed(2);
}

function perTick(ms: number | null, ticks: number): string {
  return ms === null || !ticks ? '?' : (ms / ticks).toFixed(1);
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}
