// npm run bench:payouts [-- options]: payouts through the built API and worker(s) on an anvil
// devnet mining a block a second, created one a request and in batches, by one merchant and by
// several, broadcast by one worker and by two; then a check that every one was sent exactly once
// with the right amount. See bench/README.md.
import { relative } from 'node:path';
import { DEVNET_ACCOUNTS, startDevnet } from '../../test/support/devnet';
import { clientVersion, Rpc } from '../kit/chain';
import { tokenBalance } from '../kit/chain-reads';
import { devnetEnvironment, writeDevnetFiles } from '../kit/devnet-files';
import { timestamp } from '../kit/clock';
import { anvilPid, OTHER_LOAD_WARNING_CORES, otherBenchmarks } from '../kit/cpu';
import { createMerchant, freshTarget, postgresVersion } from '../kit/database';
import { FundedMerchant, fundMerchant } from '../kit/funding';
import { HeadTracker } from '../kit/heads';
import { parseOptions } from '../kit/options';
import { build } from '../kit/processes';
import {
  describeMachine,
  fullMachineLine,
  gitDescription,
  quietness,
  quietnessWarnings,
  writeJson,
} from '../kit/report';
import { RpcLog } from '../kit/rpc-log';
import { runBenchmark } from '../kit/run';
import { hotWalletRegisteredSince, startApi, startWorker, waitForPoolFill } from '../kit/services';
import { environment, RAISED_RATE_LIMITS, ROOT, target } from '../kit/settings';
import { Creation, payoutItems, totalAmount } from './load';
import { PhaseContext, PhaseResult, PhaseSpec, runPhase } from './phase';
import { judgeTargets, printReport, Report, SERVICE_DEFAULTS } from './report';
import { verify } from './verify';

const USAGE = `Usage: npm run bench:payouts [-- options]
  --no-build              use dist/ as it is (default: npm run build first)
  --payouts N             payouts per phase (default 1000)
  --create MODE           single (POST /v1/payouts), batches (POST /v1/payout-batches) or both
                          (default): which creation phases run, and which the two workers get
  --batch-size N          payouts per batch, at most 1000 (default 1000); a merchant's share of a
                          phase goes in batches of this size
  --concurrency N         requests in flight at most (default 32)
  --merchants N           merchants of the several-merchant phases (default 10, the first of them
                          the one-merchant phases')
  --fund session|ledger   how the merchants are funded: a checkout session paid on the devnet and
                          settled by the worker (default), or one SQL ledger credit
  --cpu-prof              run the API and the workers under node --cpu-prof (profiles in
                          bench/results/)`;

// Its own database and Redis database (kit/settings.ts lists the taken ones).
const TARGET = target('payments_bench_payouts', 13);
// Like `npm run devnet`: a block a second, so confirmations and blocks advance as on a real chain.
const BLOCK_TIME_SECONDS = 1;
const CONFIRMATIONS = 1;
// The batch endpoint's own limit (docs/payouts.md, Batches).
const MAX_BATCH_SIZE = 1000;
const env = (extra: Record<string, string> = {}) => environment(TARGET, extra);

runBenchmark('payouts', async ({ step, base, log, onStop, startedAt }) => {
  const parsed = parseOptions(USAGE, {
    payouts: { type: 'string', default: '1000' },
    create: { type: 'string', default: 'both' },
    'batch-size': { type: 'string', default: String(MAX_BATCH_SIZE) },
    concurrency: { type: 'string', default: '32' },
    merchants: { type: 'string', default: '10' },
    fund: { type: 'string', default: 'session' },
    'cpu-prof': { type: 'boolean', default: false },
  });
  const create = parsed.choice('create', ['single', 'batches', 'both'] as const);
  const options = {
    payouts: parsed.whole('payouts'),
    creations: (create === 'both' ? ['single', 'batches'] : [create]) as Creation[],
    batchSize: parsed.whole('batch-size'),
    concurrency: parsed.whole('concurrency'),
    merchants: parsed.whole('merchants'),
    fund: parsed.choice('fund', ['session', 'ledger'] as const),
    cpuProfile: parsed.values['cpu-prof'] as boolean,
  };
  if (options.batchSize > MAX_BATCH_SIZE) {
    parsed.fail(`--batch-size must be at most ${MAX_BATCH_SIZE}.`);
  }
  const profile = (name: string) => (options.cpuProfile ? `${base}.${name}-profile` : null);

  // Another run of this benchmark (another checkout's too) uses the same database and Redis
  // database: each would drop the other's under its measurement.
  const twin = otherBenchmarks(['bench/payouts/run.ts']).filter((line) => line.includes('ts-node'));
  if (twin.length) throw new Error(`another bench:payouts is running, wait for it: ${twin[0]}`);
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));
  build(parsed.build, step);
  const db = await freshTarget(TARGET, step, env());
  onStop(() => db.end());
  const devnet = await startDevnet({ blockTime: BLOCK_TIME_SECONDS, logFile: log('anvil') });
  onStop(() => devnet.stop());
  const files = writeDevnetFiles(devnet, base, CONFIRMATIONS);
  const rpc = new Rpc(devnet.rpcUrl);
  const machine = describeMachine(await postgresVersion(db), await clientVersion(rpc));
  console.log(fullMachineLine(machine, start));
  const head = await HeadTracker.start(rpc, devnet.rpcUrl, devnet.chainId);
  onStop(() => head.stop());

  step(`devnet at ${devnet.rpcUrl}; starting the API and worker-1`);
  const api = await startApi({
    env: env({ ...RAISED_RATE_LIMITS, ...devnetEnvironment(files, false) }),
    logFile: log('api'),
    cpuProfileDir: profile('api'),
  });
  // Up once it has registered the hot wallet (its payout queue is being set up).
  const startNamedWorker = (name: string) => {
    const since = timestamp();
    return startWorker({
      name,
      env: env(devnetEnvironment(files, true)),
      logFile: log(name),
      cpuProfileDir: profile(name),
      ready: () => hotWalletRegisteredSince(db, since),
    });
  };
  const worker1 = await startNamedWorker('worker-1');
  const filledInMs = await waitForPoolFill(db, worker1);
  step(`worker-1 filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`);

  const accounts = Array.from({ length: options.merchants }, () =>
    createMerchant(env(), 'Bench payouts'),
  );
  const several = `${options.merchants} merchants`;
  const label = (creation: Creation) => (creation === 'single' ? 'single requests' : 'batches');
  const lastCreation = options.creations[options.creations.length - 1];
  const specs: PhaseSpec[] = [
    ...options.creations.flatMap((creation): PhaseSpec[] => [
      {
        name: `1 merchant, ${label(creation)}`,
        role: 'one merchant',
        creation,
        items: payoutItems(options.payouts, accounts.slice(0, 1)),
      },
      {
        name: `${several}, ${label(creation)}`,
        role: 'merchants',
        creation,
        items: payoutItems(options.payouts, accounts),
      },
    ]),
    {
      name: `${several}, ${label(lastCreation)}, 2 workers`,
      role: 'two workers',
      creation: lastCreation,
      items: payoutItems(options.payouts, accounts),
    },
  ];
  const merchants: FundedMerchant[] = [];
  for (const account of accounts) {
    const needed = totalAmount(
      specs.flatMap((spec) => spec.items).filter((item) => item.merchant === account),
    );
    step(`merchant ${account.id}: funding ${needed.toFixed()} USDT (${options.fund})`);
    merchants.push(await fundMerchant(options.fund, { db, api, devnet }, account, needed));
  }

  const token = devnet.tokens.USDT.contract;
  const hotWallet = DEVNET_ACCOUNTS.hotWallet.address;
  const baseline = {
    token,
    hotWallet,
    hotWalletBalance: await tokenBalance(rpc, token, hotWallet),
  };
  const context: PhaseContext = {
    target: TARGET,
    db,
    rpc,
    rpcLog: new RpcLog(log('anvil')),
    head,
    api,
    anvilPid: anvilPid(),
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    step,
  };
  const phases: PhaseResult[] = [];
  for (const spec of specs) {
    if (spec.role === 'two workers') step('starting worker-2');
    const workers =
      spec.role === 'two workers' ? [worker1, await startNamedWorker('worker-2')] : [worker1];
    phases.push(await runPhase(context, spec, workers));
  }
  await head.stop();

  step('verifying: database, chain and ledger');
  const records = phases.flatMap((phase) => phase.records);
  const verification = await verify(db, rpc, baseline, merchants, records);
  const end = quietness();
  for (const phase of phases) {
    if ((phase.cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES) {
      warnings.push(`${phase.name}: other processes used ${phase.cpu.otherCores} cores`);
    }
  }
  warnings.push(...quietnessWarnings(end, 'end'));
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
    targets: judgeTargets(phases, options.merchants),
    verification,
    warnings: [...new Set(warnings)],
    failures: [
      ...phases.flatMap((phase) => [
        ...(phase.api.failed ? [`${phase.name}: ${phase.api.failed} payouts not created`] : []),
        ...(phase.stalled ? [`${phase.name}: not all payouts Completed (stalled)`] : []),
      ]),
      ...verification.failures,
    ],
    files: Object.fromEntries(
      ['anvil', 'api', 'worker-1', 'worker-2'].map((name) => [name, relative(ROOT, log(name))]),
    ),
  };
  printReport(report);
  // Without the per-request lists (the payouts stay in the database until the next run).
  writeJson(`${base}.json`, {
    ...report,
    phases: phases.map((phase) => ({ ...phase, records: undefined })),
  });
  if (report.failures.length) process.exitCode = 1;
});
