// npm run bench:payouts [-- options]: payouts through the built API and worker(s) on an anvil
// devnet mining a block a second: N payouts with one worker, N more with two, then a check that
// every one was sent exactly once with the right amount. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from 'pg';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../../test/support/devnet';
import { clientVersion, Rpc } from '../deposits/chain';
import { anvilPid, OTHER_LOAD_WARNING_CORES } from '../deposits/cpu';
import { connectDatabase, flushRedis, postgresVersion, resetDatabase } from '../deposits/database';
import { build, installCleanup, runCli, stopAllProcesses } from '../deposits/processes';
import { describeMachine, gitDescription } from '../deposits/report';
import { RpcLog } from '../deposits/rpc-log';
import { HeadTracker, tokenBalance } from './chain';
import { createMerchant, fundMerchant, Merchant } from './funding';
import { payoutRequests, totalAmount } from './load';
import { parseOptions } from './options';
import { PhaseContext, PhaseResult, runPhase } from './phase';
import {
  creationGoal,
  fullMachineLine,
  GOAL_BROADCAST_PER_SECOND,
  printReport,
  quietness,
  quietnessWarnings,
  Report,
  writeReport,
} from './report';
import { startApi, startWorker, waitForPoolFill } from './services';
import {
  API_MAIN,
  benchEnvironment,
  CLI_MAIN,
  DATABASE,
  DATABASE_URL,
  DevnetFiles,
  REDIS_URL,
  RESULTS_DIR,
  ROOT,
  SERVICE_DEFAULTS,
  WORKER_MAIN,
} from './settings';
import { verify, Verification } from './verify';
import { BENCH_APPLICATION_NAME } from './waits';

const startedAt = Date.now();
// Like `npm run devnet`: a block a second, so confirmations and blocks advance as on a real chain.
const BLOCK_TIME_SECONDS = 1;
const CONFIRMATIONS = 1;

function step(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

function runFiles(cpuProfile: boolean) {
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `payouts-${stamp}`);
  const profile = (name: string) => (cpuProfile ? `${base}.${name}-profile` : null);
  return {
    report: `${base}.json`,
    anvilLog: `${base}.anvil.log`,
    apiLog: `${base}.api.log`,
    workerLog: (name: string) => `${base}.${name}.log`,
    profile,
    devnet: { networksFile: `${base}.networks.json`, hotWalletsFile: `${base}.hot-wallets.json` },
  };
}

/** The devnet's NETWORKS_FILE and HOT_WALLETS_FILE, as `npm run devnet` writes them. */
function writeDevnetFiles(devnet: Devnet, files: DevnetFiles): void {
  writeFileSync(files.networksFile, devnet.networksFileJson({ confirmations: CONFIRMATIONS }));
  // anvil's well-known account #2: a public test key, never a real secret.
  const hotWallets = { ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey } };
  writeFileSync(files.hotWalletsFile, JSON.stringify(hotWallets));
}

function phaseWarnings(phases: PhaseResult[]): string[] {
  return phases
    .filter((phase) => (phase.cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES)
    .map((phase) => `${phase.name}: other processes used ${phase.cpu.otherCores} cores`);
}

function phaseFailures(phases: PhaseResult[]): string[] {
  return phases.flatMap((phase) => [
    ...(phase.api.failed ? [`${phase.name}: ${phase.api.failed} payouts not created`] : []),
    ...(phase.stalled ? [`${phase.name}: not all payouts Completed (stalled)`] : []),
  ]);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const files = runFiles(options.cpuProfile);
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));

  let devnet: Devnet | null = null;
  let db: Client | null = null;
  let head: HeadTracker | null = null;
  installCleanup(async () => {
    await stopAllProcesses();
    await devnet?.stop();
  });
  try {
    build(options.build, step, [API_MAIN, WORKER_MAIN, CLI_MAIN]);
    step(`database ${DATABASE}: drop, create, migrate; Redis ${REDIS_URL}: flush`);
    await resetDatabase(DATABASE_URL, benchEnvironment());
    await flushRedis(REDIS_URL);
    // The worker's pool refill would otherwise derive addresses while we measure.
    runCli(['pool:fill', '--count', '2000'], benchEnvironment());
    db = await connectDatabase(DATABASE_URL);
    await db.query(`SET application_name = '${BENCH_APPLICATION_NAME}'`);
    devnet = await startDevnet({ blockTime: BLOCK_TIME_SECONDS, logFile: files.anvilLog });
    writeDevnetFiles(devnet, files.devnet);
    const rpc = new Rpc(devnet.rpcUrl);
    const machine = describeMachine(await postgresVersion(db), await clientVersion(rpc));
    console.log(fullMachineLine(machine, start));
    head = await HeadTracker.start(rpc, devnet.rpcUrl, devnet.chainId);

    step(`devnet at ${devnet.rpcUrl}; starting the API and worker-1`);
    const api = await startApi(files.devnet, files.apiLog, files.profile('api'));
    const worker1 = await startWorker(
      db,
      'worker-1',
      files.devnet,
      files.workerLog('worker-1'),
      files.profile('worker-1'),
    );
    const filledInMs = await waitForPoolFill(db, worker1);
    step(`worker-1 filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`);
    // One merchant's own phase, then `--merchants` of them (the first one among them).
    const accounts = [await createMerchant()];
    for (let index = 1; index < options.merchants; index++) accounts.push(await createMerchant());
    const requests = [
      payoutRequests(options.payouts, accounts.slice(0, 1)),
      payoutRequests(options.payouts, accounts),
      payoutRequests(options.payouts, accounts),
    ];
    const merchants: Merchant[] = [];
    for (const account of accounts) {
      const needed = totalAmount(requests.flat().filter((r) => r.merchantId === account.id));
      step(`merchant ${account.id}: funding ${needed.toFixed()} USDT (${options.fund})`);
      merchants.push(await fundMerchant(options.fund, { db, api, devnet }, account, needed));
    }
    step(`${merchants.length} merchants funded`);

    const token = devnet.tokens.USDT.contract;
    const hotWallet = DEVNET_ACCOUNTS.hotWallet.address;
    const baseline = {
      token,
      hotWallet,
      // Every Transfer the hot wallet ever sent is a payout: nothing else sends from it.
      fromBlock: 0,
      hotWalletBalance: await tokenBalance(rpc, token, hotWallet),
    };
    const context: PhaseContext = {
      db,
      rpc,
      rpcLog: new RpcLog(files.anvilLog),
      head,
      api,
      anvilPid: anvilPid(),
      step,
    };
    const phases: PhaseResult[] = [];
    phases.push(
      await runPhase(context, 'one merchant', [worker1], requests[0], options.concurrency),
    );
    phases.push(
      await runPhase(
        context,
        `${merchants.length} merchants`,
        [worker1],
        requests[1],
        options.concurrency,
      ),
    );
    step('starting worker-2');
    const worker2 = await startWorker(
      db,
      'worker-2',
      files.devnet,
      files.workerLog('worker-2'),
      files.profile('worker-2'),
    );
    phases.push(
      await runPhase(
        context,
        `${merchants.length} merchants, two workers`,
        [worker1, worker2],
        requests[2],
        options.concurrency,
      ),
    );
    await head.stop();

    step('verifying: database, chain and ledger');
    const verification: Verification = await verify(
      db,
      rpc,
      baseline,
      merchants,
      phases.flatMap((phase) => phase.ids),
    );
    const end = quietness();
    warnings.push(...phaseWarnings(phases), ...quietnessWarnings(end, 'end'));
    const oneWorker = phases[0].broadcast.perSecond;
    const report: Report = {
      startedAt: new Date(startedAt).toISOString(),
      git: gitDescription(),
      machine,
      quietness: { start, end },
      options,
      service: {
        ...SERVICE_DEFAULTS,
        blockTimeSeconds: BLOCK_TIME_SECONDS,
        confirmations: CONFIRMATIONS,
      },
      // Everything but the API keys.
      merchants: merchants.map(({ apiKey: _apiKey, ...merchant }) => merchant),
      phases,
      goal: {
        broadcastPerSecond: GOAL_BROADCAST_PER_SECOND,
        oneWorker,
        met: oneWorker !== null && oneWorker >= GOAL_BROADCAST_PER_SECOND,
      },
      creationGoal: creationGoal(phases[0].api.perSecond, phases[1].api.perSecond),
      verification,
      warnings: [...new Set(warnings)],
      failures: [...phaseFailures(phases), ...verification.failures],
      files: Object.fromEntries(
        Object.entries({
          anvilLog: files.anvilLog,
          apiLog: files.apiLog,
          worker1Log: files.workerLog('worker-1'),
          worker2Log: files.workerLog('worker-2'),
        }).map(([name, path]) => [name, relative(ROOT, path)]),
      ),
    };
    printReport(report);
    writeReport(files.report, report);
    if (report.failures.length) process.exitCode = 1;
  } finally {
    await head?.stop();
    await stopAllProcesses();
    await devnet?.stop();
    await db?.end();
  }
}

main().catch((error: unknown) => {
  console.error('\n[bench] FAILED:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
