// npm run bench:treasury [-- options]: sweeps and reconciliation of the built API and worker on an
// anvil devnet mining a block a second: 1,000 deposit addresses paid and swept (wall time, gas per
// address), then treasury:reconcile over 10,000 deposit addresses with activity (time, 0
// difference). See bench/treasury/README.md.
import { mkdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Client } from 'pg';
import { loadAppConfig } from '@app/common/config/app-config';
import { startDevnet } from '../../test/support/devnet';
import { prepareDevnetTreasury } from '../../scripts/devnet-treasury';
import { clientVersion, Rpc } from '../kit/chain';
import { devnetEnvironment, writeDevnetFiles } from '../kit/devnet-files';
import { freshTarget, postgresVersion } from '../kit/database';
import { build, runCli } from '../kit/processes';
import {
  describeMachine,
  fullMachineLine,
  gitDescription,
  quietness,
  quietnessWarnings,
} from '../kit/report';
import { runBenchmark } from '../kit/run';
import { startApi, startWorker } from '../kit/services';
import { RAISED_RATE_LIMITS, ROOT } from '../kit/settings';
import { HeadTracker } from '../kit/heads';
import { cliJson } from './cli';
import { parseOptions } from './options';
import { measureReconcile, ReconcileResult } from './reconcile';
import { printReport, Report, targetsOf, writeReport } from './report';
import {
  benchEnvironment,
  BLOCK_TIME_SECONDS,
  CONFIRMATIONS,
  DEPOSIT_XPRV,
  TARGET,
} from './settings';
import { measureSweeps, SweepResult } from './sweeps';

// The service's default; the tuned setup (--sweep-interval-ms) sets another.
const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Whether the worker registered the hot wallet and the sweeper since `since` (at bootstrap). */
async function walletsRegisteredSince(db: Client, since: number): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM hot_wallets WHERE network = 'ETHEREUM'
               AND updated_at >= to_timestamp($1 / 1000.0))
          + (SELECT count(*) FROM treasury_wallets WHERE network = 'ETHEREUM' AND role = 'sweeper'
               AND updated_at >= to_timestamp($1 / 1000.0)) AS n`,
    [since],
  );
  return Number(rows[0].n) === 2;
}

runBenchmark('treasury', async ({ step, base, log, onStop, startedAt }) => {
  const options = parseOptions();
  const treasuryDir = `${base}.treasury`;
  mkdirSync(treasuryDir, { recursive: true });
  const logs = { anvil: log('anvil'), api: log('api'), worker: log('worker') };
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));

  build(options.build, step);
  const db = await freshTarget(TARGET, step, benchEnvironment());
  onStop(() => db.end());
  // The whole pool the worker keeps: otherwise it derives tens of thousands of addresses (a
  // minute of its CPU) while we measure, as bench:api and bench:payouts found.
  const { targetSize } = loadAppConfig(benchEnvironment()).payAddressPool;
  step(`filling the pay-address pool (${targetSize} per chain family)`);
  runCli(['pool:fill'], benchEnvironment());
  const devnet = await startDevnet({ blockTime: BLOCK_TIME_SECONDS, logFile: logs.anvil });
  onStop(() => devnet.stop());
  const rpc = new Rpc(devnet.rpcUrl);
  const machine = describeMachine(await postgresVersion(db), await clientVersion(rpc));
  console.log(fullMachineLine(machine, start));
  const treasury = await prepareDevnetTreasury(devnet, {
    directory: treasuryDir,
    settings: {},
    depositXprv: DEPOSIT_XPRV,
  });
  const files = writeDevnetFiles(devnet, base, CONFIRMATIONS);
  const cliEnv = benchEnvironment({ NETWORKS_FILE: files.networksFile, ...treasury.environment });
  const head = await HeadTracker.start(rpc, devnet.rpcUrl, devnet.chainId);
  onStop(() => head.stop());

  step(
    `devnet at ${devnet.rpcUrl}, SweepDelegate ${treasury.delegate}; starting the API and worker`,
  );
  // Not the default: one merchant creates every session, above a merchant's 100 a second.
  const api = await startApi({
    env: benchEnvironment({ ...RAISED_RATE_LIMITS, ...devnetEnvironment(files, false) }),
    logFile: logs.api,
  });
  // Up once it has registered the hot wallet and the sweeper: funding can be booked, sweeps
  // signed. --sweep-interval-ms: the tuned setup's TREASURY_SWEEP_INTERVAL_MS.
  const workerStartedAt = Date.now();
  const worker = await startWorker({
    env: benchEnvironment({
      ...devnetEnvironment(files, true),
      ...treasury.environment,
      ...(options.sweepIntervalMs === null
        ? {}
        : { TREASURY_SWEEP_INTERVAL_MS: String(options.sweepIntervalMs) }),
    }),
    logFile: logs.worker,
    ready: () => walletsRegisteredSince(db, workerStartedAt),
  });
  for (const tx of treasury.fundingTransactions) {
    await cliJson(['treasury:book-funding', '--network', 'ETHEREUM', '--tx', tx], cliEnv);
  }
  step(`booked the wallets' funding (${treasury.fundingTransactions.length} transactions)`);
  const merchant = await cliJson<{ merchant_id: string; api_key: string }>(
    ['merchants:create', '--name', 'Bench treasury'],
    cliEnv,
  );

  const phase = { db, rpc, devnet, worker, step };
  const sweeps: SweepResult = await measureSweeps(
    { ...phase, api, apiKey: merchant.api_key, merchantId: merchant.merchant_id, head },
    options.addresses,
  );
  step(
    `swept: ${sweeps.sweeps} sweeps, ${(sweeps.wallMs / 1000).toFixed(1)} s, ${sweeps.gasPerAddress} gas an address`,
  );

  const reconcileMerchant = await cliJson<{ merchant_id: string }>(
    ['merchants:create', '--name', 'Bench reconciliation'],
    cliEnv,
  );
  const reconcile: ReconcileResult = await measureReconcile(
    { ...phase, cliEnv, base },
    reconcileMerchant.merchant_id,
    options.reconcileAddresses - options.addresses,
    options.reconcileRuns,
  );
  await head.stop();

  const end = quietness();
  warnings.push(...quietnessWarnings(end, 'end'));
  const report: Report = {
    startedAt: new Date(startedAt).toISOString(),
    git: gitDescription(),
    machine,
    quietness: { start, end },
    options,
    service: {
      setup: options.sweepIntervalMs === null ? 'default' : 'tuned',
      blockTimeSeconds: BLOCK_TIME_SECONDS,
      confirmations: CONFIRMATIONS,
      treasurySweepIntervalMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
      treasuryFile: JSON.parse(readFileSync(treasury.environment.TREASURY_FILE, 'utf8')) as Record<
        string,
        unknown
      >,
    },
    sweeps,
    reconcile,
    targets: targetsOf(sweeps, reconcile),
    warnings: [...new Set(warnings)],
    failures: [...sweeps.verification.failures, ...reconcile.failures],
    files: Object.fromEntries(
      Object.entries(logs).map(([name, path]) => [name, relative(ROOT, path)]),
    ),
  };
  printReport(report);
  writeReport(base, report);
  if (report.failures.length) process.exitCode = 1;
});
