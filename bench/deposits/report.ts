import type { CpuUsage } from '../kit/cpu';
import { count, Machine, machineLine, printTable, writeJson } from '../kit/report';
import { BATCH_MOMENTS } from './foreign-load';
import type { LatencyResult } from './latency';
import type { MainnetResult } from './mainnet';
import type { TickSql } from './measure';
import type { BenchOptions } from './options';
import { CONFIRMATIONS, TARGETS } from './settings';
import type { ThroughputResult } from './throughput';
import type { ForeignCheck, MerchantCheck } from './verify';

export interface Report {
  startedAt: string;
  git: string | null;
  machine: Machine;
  options: BenchOptions;
  latency: LatencyResult[];
  throughput: ThroughputResult | null;
  mainnet: MainnetResult | null;
  verification: MerchantCheck[];
  foreignCheck: ForeignCheck | null;
  warnings: string[];
  failures: string[];
  files: Record<string, string | null>;
}

const { detectionP90Ms, allPaidMs, maxLagBlocks } = TARGETS;

export function printReport(report: Report): void {
  console.log('');
  printLatency(report.latency);
  if (report.throughput) printThroughput(report.throughput);
  if (report.mainnet) printMainnet(report.mainnet);
  printVerification(report.verification, report.foreignCheck);
  printTargets(report);
  console.log(machineLine(report.machine));
  for (const warning of report.warnings) console.log(`WARNING: ${warning}`);
}

/** The JSON without the per-session lists (they are in the database until the next run). */
export function writeReport(file: string, report: Report): void {
  writeJson(file, {
    ...report,
    latency: report.latency.map((result) => ({ ...result, paid: undefined })),
    throughput: report.throughput && { ...report.throughput, paidSessions: undefined },
    mainnet: report.mainnet && { ...report.mainnet, paid: undefined },
  });
}

function printLatency(results: LatencyResult[]): void {
  if (!results.length) return;
  console.log(
    `Detection latency, one payment at a time: block mined -> session Paid in PostgreSQL ` +
      `(confirmations ${CONFIRMATIONS}, automining devnet)`,
  );
  printTable([
    [
      ...['worker', 'poll ms', 'payments', 'p50 ms', 'p90 ms', 'max ms', 'wait for tick p50'],
      ...['tick p50', 'tick first/last 5', 'polls/s', 'full ticks', 'RPC/full tick: head'],
      ...['getLogs', 'getBlock', 'other cores'],
    ],
    ...results.map(({ latencyMs, rpc, cpu, ...result }) => [
      result.label,
      ...[result.pollIntervalMs, result.payments, latencyMs.p50, latencyMs.p90].map(String),
      ...[latencyMs.max, result.waitForTickMs.p50, result.tickMs.p50].map(String),
      `${result.tickGrowthMs.first} / ${result.tickGrowthMs.last}`,
      perSecond(rpc.polls, cpu.seconds),
      String(rpc.fullTicks),
      ...Object.values(rpc.perFullTick).map(String),
      formatCores(cpu.otherCores),
    ]),
  ]);
  for (const result of results) {
    console.log(`  ${result.label}: CPU ${formatCpu(result.cpu)}`);
    printSql(`  ${result.label} ticks`, result.sql);
  }
  console.log('');
}

function printThroughput(result: ThroughputResult): void {
  const { blocks, rpc, afterDrain: after } = result;
  console.log(
    `Throughput: ${count(result.sessions)} open sessions, ${count(result.paid)} paid in ` +
      `${blocks.length} blocks (${blocks.join(', ')} transfers) mined within ${result.burstMs} ms; ` +
      `worker ${result.worker} (polls every ${result.pollIntervalMs} ms)`,
  );
  console.log(
    `  last block mined -> first Paid ${result.firstPaidMs ?? '-'} ms, all ${count(result.paid)} ` +
      `Paid ${result.allPaidMs ?? '(never)'} ms${targetNote(throughputMet(result), `<= ${allPaidMs} ms`)}: ` +
      `${result.paymentsPerSecond ?? '-'} payments/s`,
  );
  const ticks = result.ticks
    .map((tick) => `${tick.sessions} (start +${tick.startedMs} ms, seen +${tick.seenMs} ms)`)
    .join('; ');
  console.log(
    `  settling ticks: ${ticks}; ${result.processingPerSecond ?? '-'} payments/s of tick time`,
  );
  console.log(`  CPU in the window: ${formatCpu(result.cpu)}`);
  const other = Object.entries(rpc.other).map(([method, calls]) => `${calls} ${method}`);
  console.log(
    `  worker RPC in the window: ${rpc.polls} head polls, ${rpc.fullTicks} full ticks; ` +
      `${rpc.byMethod.eth_blockNumber} eth_blockNumber, ${rpc.byMethod.eth_getLogs} eth_getLogs, ` +
      `${rpc.byMethod.eth_getBlockByNumber} eth_getBlockByNumber` +
      (other.length ? `; other: ${other.join(', ')}` : ''),
  );
  printSql('  settling ticks', result.sql);
  console.log(
    `  idle after the drain (no new block, ${count(result.paid)} transfers in the reorg window): ` +
      `${after.rpc.polls} head polls and ${after.rpc.fullTicks} full ticks in ${after.cpu.seconds} s; ` +
      `worker ${perSecond(after.cpu.ms.worker, after.cpu.seconds)} ms CPU/s, PostgreSQL ` +
      `${perSecond(after.cpu.ms.postgres, after.cpu.seconds)} ms CPU/s`,
  );
  printSql('  idle ticks', after.sql);
  console.log('');
}

function printMainnet(result: MainnetResult): void {
  const { blockIntervalMs: blockMs, foreignPerBlockSeen: seen, latencyMs: latency, lag } = result;
  console.log(
    `Mainnet-shaped: a block every ${result.blockTimeSeconds} s (measured p50 ${blockMs.p50} ms, ` +
      `max ${blockMs.max} ms), ${result.foreignPerBlock} transfers to foreign addresses per block ` +
      `(in the window min/p50/max ${seen.min}/${seen.p50}/${seen.max}), ${result.payments} ` +
      `payments to our sessions at random moments; ${result.windowSeconds} s measured after a ` +
      `${result.warmUpSeconds} s warm-up, ${result.blocks} blocks`,
  );
  console.log(
    `  detection, confirming block mined -> Paid: p50 ${latency.p50} ms, p90 ${latency.p90} ms` +
      `${targetNote(latency.p90 <= detectionP90Ms, `p90 <= ${detectionP90Ms} ms`)}, ` +
      `max ${latency.max} ms; wait for tick p50 ${result.waitForTickMs.p50} ms, tick p50 ` +
      `${result.tickMs.p50} ms`,
  );
  const histogram = Object.entries(lag.histogram)
    .map(([blocks, samples]) => `${blocks}: ${samples}`)
    .join(', ');
  console.log(
    `  lag, head - cursor about every 200 ms (${lag.samples} samples; by blocks behind ` +
      `${histogram}): p50 ${lag.p50}, p90 ${lag.p90}, max ${lag.max} blocks; ${lag.overLimit} ` +
      `samples over ${maxLagBlocks}` +
      targetNote(lag.keptUp, `kept up: never more than ${maxLagBlocks} blocks behind`),
  );
  const { total, polls, fullTicks, ...byMethod } = result.rpcPerBlock;
  const perBlock = Object.entries(byMethod).map(([method, calls]) => `${method} ${calls}`);
  console.log(
    `  worker RPC per block: ${total} calls (${perBlock.join(', ')}); ` +
      `${polls} head polls and ${fullTicks} full ticks per block`,
  );
  console.log(`  CPU: worker ${result.workerCores ?? '?'} cores; ${formatCpu(result.cpu)}`);
  const foreign = result.foreign;
  const moments = BATCH_MOMENTS.map((moment) => `${moment * 100} %`).join(', ');
  console.log(
    `  foreign sender: ${count(foreign.sent)} transfers in ${count(foreign.batches)} batches ` +
      `(${BATCH_MOMENTS.length} per block, at ${moments} of the block time; p50 ` +
      `${foreign.batchMs.p50} ms, max ${foreign.batchMs.max} ms to send), ` +
      `${foreign.lateBatches} late, ${foreign.errors} refused` +
      (foreign.firstError ? ` (first: ${foreign.firstError})` : ''),
  );
  printSql('  mainnet-shaped ticks', result.sql);
  console.log('');
}

function printSql(label: string, sql: TickSql | null): void {
  if (!sql || !sql.ticks) return;
  console.log(
    `${label} (--trace-sql): ${sql.ticks} ticks, ${count(sql.statements)} statements, ` +
      `${Math.round(sql.sqlMs)} ms SQL of ${Math.round(sql.transactionMs)} ms in transactions`,
  );
  const busiest = sql.busiest;
  // Only a tick worth reading statement by statement (set-based ticks send few, big ones).
  if (!busiest || busiest.ms < 50) return;
  console.log(
    `    busiest tick: ${count(busiest.statements)} statements, ${Math.round(busiest.sqlMs)} ms ` +
      `SQL of ${Math.round(busiest.ms)} ms; by statement (count, ms):`,
  );
  for (const entry of busiest.byStatement) {
    const [calls, ms] = [entry.count, Math.round(entry.ms)].map((n) => String(n).padStart(6));
    console.log(`      ${calls} ${ms}  ${entry.statement}`);
  }
}

function printVerification(checks: MerchantCheck[], foreign: ForeignCheck | null): void {
  const failed = checks.filter((check) => check.failures.length);
  const payments = checks.reduce((sum, check) => sum + check.expectedPaid, 0);
  if (!failed.length && !foreign?.failures.length) {
    console.log(
      `Verification: OK (${checks.length} merchants, ${count(payments)} payments: each session ` +
        `Paid once with one Confirmed transfer of the amount sent; ledger = sum of net_amount` +
        (foreign
          ? `; no foreign transfer recorded as a session's or unmatched, blocks ` +
            `${foreign.blockRange.from}-${foreign.blockRange.to})`
          : ')'),
    );
    return;
  }
  console.log('Verification: FAILED');
  for (const check of failed) {
    for (const failure of check.failures) console.log(`  - ${check.merchantId}: ${failure}`);
  }
  for (const failure of foreign?.failures ?? []) console.log(`  - mainnet-shaped: ${failure}`);
}

/** Issue 10's targets, each with the figure that decides it. */
function printTargets({ latency, throughput, mainnet }: Report): void {
  const lines: string[] = [];
  const headline = latency.find((result) => result.scanIntervalMs === null);
  if (headline) {
    const p90 = headline.latencyMs.p90;
    lines.push(
      `detection p90 <= ${detectionP90Ms} ms at the default configuration: ` +
        `${p90} ms${metNote(p90 <= detectionP90Ms)}`,
    );
  }
  if (throughput) {
    lines.push(
      `${count(throughput.paid)} of ${count(throughput.sessions)} Paid <= ${allPaidMs} ms after ` +
        `the last block: ${throughput.allPaidMs ?? 'never'} ms${metNote(throughputMet(throughput))}`,
    );
  }
  if (mainnet) {
    const p90 = mainnet.latencyMs.p90;
    lines.push(
      `mainnet-shaped detection p90 <= ${detectionP90Ms} ms: ${p90} ms` +
        metNote(p90 <= detectionP90Ms),
      `mainnet-shaped keeps up (lag <= ${maxLagBlocks} blocks after warm-up): max ` +
        `${mainnet.lag.max}${metNote(mainnet.lag.keptUp)}; ${mainnet.rpcPerBlock.total} worker ` +
        `RPC calls per block`,
    );
  }
  if (!lines.length) return;
  console.log('Targets (issue 10):');
  for (const line of lines) console.log(`  - ${line}`);
}

function throughputMet(result: ThroughputResult): boolean {
  return result.allPaidMs !== null && result.allPaidMs <= allPaidMs;
}

function targetNote(met: boolean, target: string): string {
  return met ? ` (target ${target}: met)` : ` << BELOW TARGET (${target})`;
}

function metNote(met: boolean): string {
  return met ? ': met' : '  << BELOW TARGET';
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

function perSecond(value: number | null, seconds: number): string {
  return value === null || seconds <= 0 ? '?' : (value / seconds).toFixed(1);
}
