// npm run bench:deposits [-- options]: deposit detection of the real built worker against a real
// anvil devnet: latency (mined -> Paid) at two scan intervals, then throughput (a burst of
// payments among many open sessions), then a correctness check. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from 'pg';
import { Devnet, startDevnet } from '../../test/support/devnet';
import { clientVersion, mineEmptyBlocks, Payer, Rpc } from './chain';
import { BenchContext } from './context';
import { anvilPid, loadAverage, OTHER_LOAD_WARNING_CORES, otherBenchmarks } from './cpu';
import { connectDatabase, flushRedis, postgresVersion, resetDatabase } from './database';
import { LatencyResult, measureLatency } from './latency';
import { BenchOptions, parseOptions } from './options';
import { build, installCleanup, runCli, stopAllProcesses } from './processes';
import {
  describeMachine,
  gitDescription,
  machineLine,
  printReport,
  Report,
  writeReport,
} from './report';
import { RpcLog } from './rpc-log';
import { DATABASE, RESULTS_DIR, ROOT } from './settings';
import { measureThroughput, ThroughputResult } from './throughput';
import { verifyMerchant } from './verify';
import { startWorker, stopWorker, waitForCursor, Worker, WorkerFiles } from './worker';

const startedAt = Date.now();
// More than the devnet's reorg window (confirmations 1 + 64 blocks): mined between phases, so the
// payments of one phase are no longer re-checked by every tick of the next, and phases compare.
const BLOCKS_BETWEEN_PHASES = 100;

function step(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

interface RunFiles {
  report: string;
  anvilLog: string;
  networks: string;
  worker: (scanIntervalMs: number) => WorkerFiles;
}

function runFiles(options: BenchOptions, networks: string): RunFiles {
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `deposits-${stamp}`);
  return {
    report: `${base}.json`,
    anvilLog: `${base}.anvil.log`,
    networks,
    worker: (scanIntervalMs) => ({
      networksFile: networks,
      logFile: `${base}.worker-${scanIntervalMs}.log`,
      sqlTrace: options.traceSql,
      cpuProfileDir: options.cpuProfile ? `${base}.worker-${scanIntervalMs}-profile` : null,
    }),
  };
}

/** Another benchmark or a busy machine makes every figure here low and noisy: say so up front. */
function quietnessWarnings(when: 'start' | 'end'): string[] {
  const warnings = otherBenchmarks().map(
    (line) => `another benchmark was running at the ${when}: ${line}`,
  );
  const [oneMinute] = loadAverage();
  if (oneMinute > 1) warnings.push(`load average ${oneMinute.toFixed(2)} at the ${when}`);
  return warnings;
}

function windowWarnings(latency: LatencyResult[], throughput: ThroughputResult | null): string[] {
  const windows = [
    ...latency.map((result) => [`latency @ ${result.scanIntervalMs} ms`, result.cpu] as const),
    ...(throughput ? [['throughput', throughput.cpu] as const] : []),
  ];
  return windows
    .filter(([, cpu]) => (cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES)
    .map(([name, cpu]) => `${name}: other processes used ${cpu.otherCores} cores`);
}

async function runPhases(
  options: BenchOptions,
  context: BenchContext,
  files: RunFiles,
): Promise<{ latency: LatencyResult[]; throughput: ThroughputResult }> {
  const latency: LatencyResult[] = [];
  let worker: Worker | null = null;
  for (const scanIntervalMs of options.intervalsMs) {
    if (worker) await stopWorker(worker);
    await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
    step(`starting the worker, DEPOSIT_SCAN_INTERVAL_MS=${scanIntervalMs}`);
    worker = await startWorker(context.db, scanIntervalMs, files.worker(scanIntervalMs));
    latency.push(await measureLatency(context, worker, options.payments));
  }
  // The throughput phase runs on the last worker: the one with the shortest interval by default,
  // so the wait for the next tick is a small part of the figure.
  const head = await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
  await waitForCursor(context.db, worker as Worker, head);
  const throughput = await measureThroughput(context, worker as Worker, {
    sessions: options.sessions,
    paid: options.paid,
    perBlock: options.perBlock,
  });
  await stopWorker(worker as Worker);
  return { latency, throughput };
}

async function prepare(devnet: Devnet, db: Client, files: RunFiles): Promise<BenchContext> {
  writeFileSync(files.networks, devnet.networksFileJson({ confirmations: 1 }));
  const rpc = new Rpc(devnet.rpcUrl);
  return {
    db,
    rpc,
    payer: await Payer.create(devnet, rpc),
    tokenContract: devnet.tokens.USDT.contract,
    rpcLog: new RpcLog(files.anvilLog),
    anvilPid: anvilPid(),
    step,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const files = runFiles(options, join(RESULTS_DIR, `deposits-${stamp}.networks.json`));
  const warnings = quietnessWarnings('start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));

  let devnet: Devnet | null = null;
  let db: Client | null = null;
  installCleanup(async () => {
    await stopAllProcesses();
    await devnet?.stop();
  });
  try {
    build(options.build, step);
    step(`database ${DATABASE}: drop, create, migrate; Redis database 14: flush`);
    await resetDatabase();
    await flushRedis();
    // The worker's pool refill would otherwise derive 4,000 addresses while we measure.
    runCli(['pool:fill']);
    db = await connectDatabase();
    devnet = await startDevnet({ logFile: files.anvilLog });
    const context = await prepare(devnet, db, files);
    const machine = describeMachine(await postgresVersion(db), await clientVersion(context.rpc));
    console.log(machineLine(machine));
    step(`devnet at ${devnet.rpcUrl}, USDT ${context.tokenContract}`);

    const { latency, throughput } = await runPhases(options, context, files);
    const verification = [];
    for (const { merchantId, paid } of [
      ...latency.map((result) => ({ merchantId: result.merchantId, paid: result.paid })),
      { merchantId: throughput.merchantId, paid: throughput.paidSessions },
    ]) {
      verification.push(await verifyMerchant(db, merchantId, paid));
    }
    warnings.push(...windowWarnings(latency, throughput), ...quietnessWarnings('end'));
    const failures = verification.flatMap((check) =>
      check.failures.map((failure) => `${check.merchantId}: ${failure}`),
    );
    const report: Report = {
      startedAt: new Date(startedAt).toISOString(),
      git: gitDescription(),
      machine,
      options,
      latency,
      throughput,
      verification,
      warnings: [...new Set(warnings)],
      failures,
      files: {
        anvilLog: relative(ROOT, files.anvilLog),
        networks: relative(ROOT, files.networks),
        ...Object.fromEntries(
          options.intervalsMs.map((interval) => [
            `worker${interval}Log`,
            relative(ROOT, files.worker(interval).logFile),
          ]),
        ),
      },
    };
    printReport(report);
    writeReport(files.report, report);
    if (failures.length) process.exitCode = 1;
  } finally {
    await stopAllProcesses();
    await devnet?.stop();
    await db?.end();
  }
}

main().catch((error: unknown) => {
  console.error('\n[bench] FAILED:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
