// npm run bench:deposits [-- options]: deposit detection of the real built worker against a real
// anvil devnet at its default configuration: latency (mined -> Paid), throughput (a burst of
// payments among many open sessions), a mainnet-shaped chain (a block a second full of foreign
// transfers), then a correctness check. See bench/deposits/README.md.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Client } from 'pg';
import { loadAppConfig } from '@app/common/config/app-config';
import { Devnet, startDevnet } from '../../test/support/devnet';
import { clientVersion, mineEmptyBlocks, Payer, Rpc } from '../kit/chain';
import { anvilPid, CpuUsage, OTHER_LOAD_WARNING_CORES } from '../kit/cpu';
import { freshTarget, postgresVersion } from '../kit/database';
import { build, runCli } from '../kit/processes';
import {
  describeMachine,
  gitDescription,
  machineLine,
  quietness,
  quietnessWarnings,
} from '../kit/report';
import { RpcLog } from '../kit/rpc-log';
import { Run, runBenchmark } from '../kit/run';
import { ROOT } from '../kit/settings';
import { BenchContext } from './context';
import { LatencyResult, measureLatency } from './latency';
import { MainnetResult, measureMainnet, prepareMainnet } from './mainnet';
import { BenchOptions, parseOptions } from './options';
import { printReport, Report, writeReport } from './report';
import { appEnvironment, CONFIRMATIONS, TARGET } from './settings';
import { measureThroughput, ThroughputResult } from './throughput';
import { ForeignCheck, MerchantCheck, verifyForeign, verifyMerchant } from './verify';
import {
  startWorker,
  stopWorker,
  waitForCursor,
  Worker,
  WorkerConfig,
  WorkerFiles,
} from './worker';

// More than the devnet's reorg window (confirmations 1 + 64 blocks): mined between phases, so the
// payments of one phase are no longer re-checked by every tick of the next, and phases compare.
const BLOCKS_BETWEEN_PHASES = 100;
const DEFAULT_WORKER: WorkerConfig = { label: 'default', scanIntervalMs: null };

interface RunFiles {
  report: string;
  anvilLog: string;
  networks: string;
  /** The worker files of one run, by a key that names it in file names. */
  worker: (key: string) => WorkerFiles;
  workerLogs: Map<string, string>;
}

function runFiles(options: BenchOptions, base: string): RunFiles {
  const workerLogs = new Map<string, string>();
  return {
    report: `${base}.json`,
    anvilLog: `${base}.anvil.log`,
    networks: `${base}.networks.json`,
    workerLogs,
    worker: (key) => {
      const logFile = `${base}.worker-${key}.log`;
      workerLogs.set(key, logFile);
      return {
        networksFile: `${base}.networks.json`,
        logFile,
        sqlTrace: options.traceSql,
        cpuProfileDir: options.cpuProfile ? `${base}.worker-${key}-profile` : null,
      };
    },
  };
}

function windowWarnings(results: PhaseResults): string[] {
  const windows: Array<[string, CpuUsage]> = [
    ...results.latency.map((result): [string, CpuUsage] => [
      `latency (${result.label})`,
      result.cpu,
    ]),
    ...(results.throughput ? [['throughput', results.throughput.cpu] as [string, CpuUsage]] : []),
    ...(results.mainnet ? [['mainnet-shaped', results.mainnet.cpu] as [string, CpuUsage]] : []),
  ];
  return windows
    .filter(([, cpu]) => (cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES)
    .map(([name, cpu]) => `${name}: other processes used ${cpu.otherCores} cores`);
}

interface PhaseResults {
  latency: LatencyResult[];
  throughput: ThroughputResult | null;
  mainnet: MainnetResult | null;
}

async function runPhases(
  options: BenchOptions,
  context: BenchContext,
  files: RunFiles,
): Promise<PhaseResults> {
  const results: PhaseResults = { latency: [], throughput: null, mainnet: null };
  const phases = new Set(options.phases);
  // An automining devnet only moves when we send something: the warm-up mines empty blocks.
  const nudge = () => mineEmptyBlocks(context.rpc, 1);
  const start = async (config: WorkerConfig, key: string): Promise<Worker> => {
    await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
    const setting =
      config.scanIntervalMs === null
        ? 'the default configuration (DEPOSIT_SCAN_INTERVAL_MS not set)'
        : `DEPOSIT_SCAN_INTERVAL_MS=${config.scanIntervalMs}`;
    context.step(`starting the worker (${config.label}): ${setting}`);
    const worker = await startWorker(context.db, config, files.worker(key), nudge);
    context.step(`worker (${config.label}) polls the devnet every ${worker.pollIntervalMs} ms`);
    return worker;
  };

  // The headline: the default configuration, latency then throughput on the same worker.
  if (phases.has('latency') || phases.has('throughput')) {
    const worker = await start(DEFAULT_WORKER, 'default');
    try {
      if (phases.has('latency')) {
        results.latency.push(await measureLatency(context, worker, options.payments));
      }
      if (phases.has('throughput')) {
        const head = await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
        await waitForCursor(context.db, worker, head);
        results.throughput = await measureThroughput(context, worker, {
          sessions: options.sessions,
          paid: options.paid,
          perBlock: options.perBlock,
        });
      }
    } finally {
      await stopWorker(worker);
    }
  }
  if (phases.has('latency')) {
    for (const scanIntervalMs of options.intervalsMs) {
      const worker = await start(
        { label: `${scanIntervalMs} ms`, scanIntervalMs },
        String(scanIntervalMs),
      );
      try {
        results.latency.push(await measureLatency(context, worker, options.payments));
      } finally {
        await stopWorker(worker);
      }
    }
  }
  if (phases.has('mainnet')) {
    const settings = {
      seconds: options.mainnetSeconds,
      payments: options.mainnetPayments,
      foreignPerBlock: options.foreignPerBlock,
      blockTimeSeconds: options.blockTimeSeconds,
    };
    await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
    const prepared = await prepareMainnet(context, settings);
    const worker = await start({ label: 'mainnet-shaped', scanIntervalMs: null }, 'mainnet');
    try {
      results.mainnet = await measureMainnet(context, worker, prepared, settings);
    } finally {
      await stopWorker(worker);
    }
  }
  return results;
}

async function verify(
  db: Client,
  results: PhaseResults,
): Promise<{ verification: MerchantCheck[]; foreignCheck: ForeignCheck | null }> {
  const verification: MerchantCheck[] = [];
  for (const { merchantId, paid } of [
    ...results.latency.map((result) => ({ merchantId: result.merchantId, paid: result.paid })),
    ...(results.throughput
      ? [{ merchantId: results.throughput.merchantId, paid: results.throughput.paidSessions }]
      : []),
    ...(results.mainnet
      ? [{ merchantId: results.mainnet.merchantId, paid: results.mainnet.paid }]
      : []),
  ]) {
    verification.push(await verifyMerchant(db, merchantId, paid));
  }
  const mainnet = results.mainnet;
  const foreignCheck = mainnet
    ? await verifyForeign(db, mainnet.foreignSenders, mainnet.blockRange, mainnet.paymentTxHashes)
    : null;
  return { verification, foreignCheck };
}

async function prepare(
  devnet: Devnet,
  db: Client,
  files: RunFiles,
  step: (message: string) => void,
): Promise<BenchContext> {
  writeFileSync(files.networks, devnet.networksFileJson({ confirmations: CONFIRMATIONS }));
  const rpc = new Rpc(devnet.rpcUrl);
  return {
    db,
    rpc,
    rpcUrl: devnet.rpcUrl,
    payer: await Payer.create(devnet, rpc),
    tokenContract: devnet.tokens.USDT.contract,
    rpcLog: new RpcLog(files.anvilLog),
    anvilPid: anvilPid(),
    step,
  };
}

runBenchmark('deposits', async (run: Run) => {
  const { step } = run;
  const options = parseOptions(process.argv.slice(2));
  const files = runFiles(options, run.base);
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));
  let devnet: Devnet | null = null;
  run.onStop(() => devnet?.stop());
  build(options.build, step);
  const db = await freshTarget(TARGET, step, appEnvironment());
  run.onStop(() => db.end());
  // Up to the worker's low watermark (a sixth of PAY_ADDRESS_POOL_TARGET by default): below it
  // the worker's refill job derives the whole shortfall (tens of thousands of addresses, tens
  // of seconds of CPU) while we measure.
  const { lowWatermark } = loadAppConfig(appEnvironment()).payAddressPool;
  runCli(['pool:fill', '--count', String(lowWatermark)], appEnvironment());
  devnet = await startDevnet({ logFile: files.anvilLog });
  const context = await prepare(devnet, db, files, step);
  const machine = describeMachine(await postgresVersion(db), await clientVersion(context.rpc));
  console.log(machineLine(machine));
  step(`devnet at ${devnet.rpcUrl}, USDT ${context.tokenContract}`);

  const results = await runPhases(options, context, files);
  const { verification, foreignCheck } = await verify(db, results);
  warnings.push(...windowWarnings(results), ...quietnessWarnings(quietness(), 'end'));
  const failures = [
    ...verification.flatMap((check) =>
      check.failures.map((failure) => `${check.merchantId}: ${failure}`),
    ),
    ...(foreignCheck?.failures ?? []).map((failure) => `mainnet-shaped: ${failure}`),
  ];
  const report: Report = {
    startedAt: new Date(run.startedAt).toISOString(),
    git: gitDescription(),
    machine,
    options,
    ...results,
    verification,
    foreignCheck,
    warnings: [...new Set(warnings)],
    failures,
    files: {
      anvilLog: relative(ROOT, files.anvilLog),
      networks: relative(ROOT, files.networks),
      ...Object.fromEntries(
        [...files.workerLogs].map(([key, file]) => [`worker-${key}`, relative(ROOT, file)]),
      ),
    },
  };
  printReport(report);
  writeReport(files.report, report);
  if (failures.length) process.exitCode = 1;
});
