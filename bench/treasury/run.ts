// npm run bench:treasury [-- options]: sweeps and reconciliation of the built API and worker on an
// anvil devnet mining a block a second: 1,000 deposit addresses paid and swept (wall time, gas per
// address), then treasury:reconcile over 10,000 deposit addresses with activity (time, 0
// difference). See bench/README.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from 'pg';
import { loadAppConfig } from '@app/common/config/app-config';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../../test/support/devnet';
import { prepareDevnetTreasury } from '../../scripts/devnet-treasury';
import { clientVersion, Rpc } from '../deposits/chain';
import { connectDatabase, flushRedis, postgresVersion, resetDatabase } from '../deposits/database';
import { build, installCleanup, runCli, stopAllProcesses } from '../deposits/processes';
import { describeMachine, gitDescription } from '../deposits/report';
import { HeadTracker } from '../payouts/chain';
import { fullMachineLine, quietness, quietnessWarnings } from '../payouts/report';
import { cliJson } from './cli';
import { parseOptions } from './options';
import { measureReconcile, ReconcileResult } from './reconcile';
import { printReport, Report, targetsOf, writeReport } from './report';
import { ServiceFiles, startApi, startWorker } from './services';
import {
  API_MAIN,
  benchEnvironment,
  BLOCK_TIME_SECONDS,
  CLI_MAIN,
  CONFIRMATIONS,
  DATABASE,
  DATABASE_URL,
  DEPOSIT_XPRV,
  REDIS_URL,
  RESULTS_DIR,
  ROOT,
  WORKER_MAIN,
} from './settings';
import { measureSweeps, SweepResult } from './sweeps';

const startedAt = Date.now();
// The service's default; the tuned setup (--sweep-interval-ms) sets another.
const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

function step(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

/** The devnet's NETWORKS_FILE and HOT_WALLETS_FILE, as `npm run devnet` writes them. */
function writeDevnetFiles(devnet: Devnet, base: string): Omit<ServiceFiles, 'treasury'> {
  const files = {
    networksFile: `${base}.networks.json`,
    hotWalletsFile: `${base}.hot-wallets.json`,
  };
  writeFileSync(files.networksFile, devnet.networksFileJson({ confirmations: CONFIRMATIONS }));
  // anvil's well-known account #2: a public test key, never a real secret.
  const hotWallets = { ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey } };
  writeFileSync(files.hotWalletsFile, JSON.stringify(hotWallets));
  return files;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `treasury-${stamp}`);
  const treasuryDir = `${base}.treasury`;
  mkdirSync(treasuryDir, { recursive: true });
  const logs = { anvil: `${base}.anvil.log`, api: `${base}.api.log`, worker: `${base}.worker.log` };
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
    // The whole pool the worker keeps: otherwise it derives tens of thousands of addresses (a
    // minute of its CPU) while we measure, as bench:api and bench:payouts found.
    const { targetSize } = loadAppConfig(benchEnvironment()).payAddressPool;
    step(`filling the pay-address pool (${targetSize} per chain family)`);
    runCli(['pool:fill'], benchEnvironment());
    db = await connectDatabase(DATABASE_URL);
    devnet = await startDevnet({ blockTime: BLOCK_TIME_SECONDS, logFile: logs.anvil });
    const rpc = new Rpc(devnet.rpcUrl);
    const machine = describeMachine(await postgresVersion(db), await clientVersion(rpc));
    console.log(fullMachineLine(machine, start));
    const treasury = await prepareDevnetTreasury(devnet, {
      directory: treasuryDir,
      settings: {},
      depositXprv: DEPOSIT_XPRV,
    });
    const files: ServiceFiles = {
      ...writeDevnetFiles(devnet, base),
      treasury: treasury.environment,
    };
    const cliEnv = benchEnvironment({ NETWORKS_FILE: files.networksFile, ...files.treasury });
    head = await HeadTracker.start(rpc, devnet.rpcUrl, devnet.chainId);

    step(
      `devnet at ${devnet.rpcUrl}, SweepDelegate ${treasury.delegate}; starting the API and worker`,
    );
    const api = await startApi(files, logs.api);
    const worker = await startWorker(db, files, logs.worker, options.sweepIntervalMs);
    for (const tx of treasury.fundingTransactions) {
      await cliJson(['treasury:book-funding', '--network', 'ETHEREUM', '--tx', tx], cliEnv);
    }
    step(`booked the wallets' funding (${treasury.fundingTransactions.length} transactions)`);
    const merchant = await cliJson<{ merchant_id: string; api_key: string }>(
      ['merchants:create', '--name', 'Bench treasury'],
      cliEnv,
    );

    const sweeps: SweepResult = await measureSweeps(
      {
        db,
        rpc,
        devnet,
        api,
        apiKey: merchant.api_key,
        merchantId: merchant.merchant_id,
        worker,
        head,
        step,
      },
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
      { db, rpc, devnet, worker, cliEnv, step, base },
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
        treasuryFile: JSON.parse(readFileSync(files.treasury.TREASURY_FILE, 'utf8')) as Record<
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
