// npm run bench:deposits [-- options]: deposit detection of the real built worker against a real
// anvil devnet at its default configuration: latency (mined -> Paid), throughput (a burst of
// payments among many open sessions), a mainnet-shaped chain (a block a second full of foreign
// transfers), then a correctness check. See bench/deposits/README.md.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { loadAppConfig } from '@app/common/config/app-config';
import { Devnet, startDevnet } from '../../test/support/devnet';
import { clientVersion, mineEmptyBlocks, Payer, Rpc } from '../kit/chain';
import { anvilPid, otherLoadWarnings } from '../kit/cpu';
import { freshTarget, postgresVersion } from '../kit/database';
import { build, runCli, stopProcess } from '../kit/processes';
import {
  describeMachine,
  gitDescription,
  machineLine,
  quietness,
  quietnessWarnings,
} from '../kit/report';
import { RpcLog } from '../kit/rpc-log';
import { runBenchmark } from '../kit/run';
import { ROOT } from '../kit/settings';
import { LatencyResult, measureLatency } from './latency';
import { MainnetResult, measureMainnet, prepareMainnet } from './mainnet';
import { BenchContext } from './measure';
import { BenchOptions, parseOptions } from './options';
import { printReport, writeReport } from './report';
import { appEnvironment, CONFIRMATIONS, TARGET } from './settings';
import { measureThroughput, ThroughputResult } from './throughput';
import { verifyForeign, verifyMerchant } from './verify';
import { startWorker, waitForCursor, Worker, WorkerConfig } from './worker';

// More than the devnet's reorg window (confirmations 1 + 64 blocks): mined between phases, so the
// payments of one phase are no longer re-checked by every tick of the next, and phases compare.
const BLOCKS_BETWEEN_PHASES = 100;

interface PhaseResults {
  latency: LatencyResult[];
  throughput: ThroughputResult | null;
  mainnet: MainnetResult | null;
}

async function runPhases(
  options: BenchOptions,
  context: BenchContext,
  base: string,
  workerLogs: Map<string, string>,
): Promise<PhaseResults> {
  const results: PhaseResults = { latency: [], throughput: null, mainnet: null };
  const phases = new Set(options.phases);
  /** Starts a worker (`key` names its files), runs `measure` with it, stops it. */
  const withWorker = async (config: WorkerConfig, key: string, measure: (w: Worker) => unknown) => {
    await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
    const setting =
      config.scanIntervalMs === null
        ? 'the default configuration (DEPOSIT_SCAN_INTERVAL_MS not set)'
        : `DEPOSIT_SCAN_INTERVAL_MS=${config.scanIntervalMs}`;
    context.step(`starting the worker (${config.label}): ${setting}`);
    const logFile = `${base}.worker-${key}.log`;
    workerLogs.set(key, logFile);
    const files = {
      networksFile: `${base}.networks.json`,
      logFile,
      sqlTrace: options.traceSql,
      cpuProfileDir: options.cpuProfile ? `${base}.worker-${key}-profile` : null,
    };
    // An automining devnet only moves when we send something: the warm-up mines empty blocks.
    const nudge = () => mineEmptyBlocks(context.rpc, 1);
    const worker = await startWorker(context.db, config, files, nudge);
    context.step(`worker (${config.label}) polls the devnet every ${worker.pollIntervalMs} ms`);
    try {
      await measure(worker);
    } finally {
      await stopProcess(worker.process);
    }
  };

  // The headline: the default configuration, latency then throughput on the same worker.
  if (phases.has('latency') || phases.has('throughput')) {
    await withWorker({ label: 'default', scanIntervalMs: null }, 'default', async (worker) => {
      if (phases.has('latency')) {
        results.latency.push(await measureLatency(context, worker, options.payments));
      }
      if (phases.has('throughput')) {
        const head = await mineEmptyBlocks(context.rpc, BLOCKS_BETWEEN_PHASES);
        await waitForCursor(context.db, worker, head);
        const { sessions, paid, perBlock } = options;
        results.throughput = await measureThroughput(context, worker, { sessions, paid, perBlock });
      }
    });
  }
  for (const scanIntervalMs of phases.has('latency') ? options.intervalsMs : []) {
    const config = { label: `${scanIntervalMs} ms`, scanIntervalMs };
    await withWorker(config, String(scanIntervalMs), async (worker) => {
      results.latency.push(await measureLatency(context, worker, options.payments));
    });
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
    const config = { label: 'mainnet-shaped', scanIntervalMs: null };
    await withWorker(config, 'mainnet', async (worker) => {
      results.mainnet = await measureMainnet(context, worker, prepared, settings);
    });
  }
  return results;
}

runBenchmark('deposits', async ({ step, base, onStop, startedAt }) => {
  const options = parseOptions();
  const files = { anvilLog: `${base}.anvil.log`, networks: `${base}.networks.json` };
  const workerLogs = new Map<string, string>();
  const warnings = quietnessWarnings(quietness(), 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));
  let devnet: Devnet | null = null;
  onStop(() => devnet?.stop());
  build(options.build, step);
  const db = await freshTarget(TARGET, step, appEnvironment());
  onStop(() => db.end());
  // Up to the worker's low watermark (a sixth of PAY_ADDRESS_POOL_TARGET by default): below it
  // the worker's refill job derives the whole shortfall (tens of thousands of addresses, tens
  // of seconds of CPU) while we measure.
  const { lowWatermark } = loadAppConfig(appEnvironment()).payAddressPool;
  runCli(['pool:fill', '--count', String(lowWatermark)], appEnvironment());
  devnet = await startDevnet({ logFile: files.anvilLog });
  writeFileSync(files.networks, devnet.networksFileJson({ confirmations: CONFIRMATIONS }));
  const rpc = new Rpc(devnet.rpcUrl);
  const context: BenchContext = {
    db,
    rpc,
    rpcUrl: devnet.rpcUrl,
    payer: await Payer.create(devnet, rpc),
    tokenContract: devnet.tokens.USDT.contract,
    rpcLog: new RpcLog(files.anvilLog),
    anvilPid: anvilPid(),
    step,
  };
  const machine = describeMachine(await postgresVersion(db), await clientVersion(rpc));
  console.log(machineLine(machine));
  step(`devnet at ${devnet.rpcUrl}, USDT ${context.tokenContract}`);

  const results = await runPhases(options, context, base, workerLogs);
  const { latency, throughput, mainnet } = results;
  const verification = [];
  for (const [merchantId, paid] of [
    ...latency.map((result) => [result.merchantId, result.paid] as const),
    ...(throughput ? [[throughput.merchantId, throughput.paidSessions] as const] : []),
    ...(mainnet ? [[mainnet.merchantId, mainnet.paid] as const] : []),
  ]) {
    verification.push(await verifyMerchant(db, merchantId, paid));
  }
  const foreignCheck = mainnet
    ? await verifyForeign(db, mainnet.foreignSenders, mainnet.blockRange, mainnet.paymentTxHashes)
    : null;
  warnings.push(
    ...otherLoadWarnings([
      ...latency.map((result) => ({ name: `latency (${result.label})`, cpu: result.cpu })),
      ...(throughput ? [{ name: 'throughput', cpu: throughput.cpu }] : []),
      ...(mainnet ? [{ name: 'mainnet-shaped', cpu: mainnet.cpu }] : []),
    ]),
    ...quietnessWarnings(quietness(), 'end'),
  );
  const failures = [
    ...verification.flatMap((check) =>
      check.failures.map((failure) => `${check.merchantId}: ${failure}`),
    ),
    ...(foreignCheck?.failures ?? []).map((failure) => `mainnet-shaped: ${failure}`),
  ];
  const report = {
    startedAt: new Date(startedAt).toISOString(),
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
        [...workerLogs].map(([key, file]) => [`worker-${key}`, relative(ROOT, file)]),
      ),
    },
  };
  printReport(report);
  writeReport(`${base}.json`, report);
  if (failures.length) process.exitCode = 1;
});
