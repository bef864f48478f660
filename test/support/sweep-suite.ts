import { readFileSync, writeFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Contract, Wallet } from 'ethers';
import { SweepKeys, TreasurySweeps } from '@app/treasury';
import type { SweepRunReport } from '@app/treasury';
import { CliModule } from '../../apps/cli/src/cli.module';
import { ChainSuite, ChainSuiteOptions, useChainSuite } from './chain-suite';
import { useChainEnvironment } from './chain-test-env';
import type { DevnetAccount } from './devnet';
import {
  Devnet,
  DEVNET_ACCOUNTS,
  deployNoReturnToken,
  noReturnTokenAbi,
  startDevnet,
} from './devnet';
import { startWorker } from './in-process-worker';
import { startPayoutsOnNewChain } from './payout-chain';
import { RpcProxy } from './rpc-proxy';
import { startedParts } from './suite-parts';
import { startSweepsOnNewChain, sweepEnvironment } from './sweep-env';
import { TestApi, TestMerchant } from './test-app';
import { waitFor } from './wait-for';

const TIMEOUT_MS = 60_000;

/** What a sweep suite on a blacklisting USDT is started with. */
export interface SweepSuiteOptions {
  /** The suite's own sweeper (devnetSweeper). */
  sweeper: DevnetAccount;
  /** Wei the sweeper is given first (anvil funds accounts #0-#9 only). */
  fundSweeper?: bigint;
  /** An RpcProxy in front of the devnet: the apps' only URL (the test's own calls go to anvil). */
  proxy?: boolean;
  /** The treasury settings over sweepEnvironment's defaults. */
  settings?: Record<string, unknown>;
}

/** What the suite's tests read; each throws if read before beforeAll has set it. */
export interface SweepSuite {
  readonly devnet: Devnet;
  readonly proxy: RpcProxy;
  readonly api: TestApi;
  readonly merchant: TestMerchant;
  /** The NoReturnToken standing in as the network's USDT, signed for by the deployer. */
  readonly usdt: Contract;
  /** The SweepDelegate's address. */
  readonly delegate: string;
  /** The sweeping side the last useSettings built. */
  readonly context: INestApplicationContext;
  /** The sweeping side (as the CLI builds it) with these settings over the suite's own. */
  useSettings(overrides: Record<string, unknown>): Promise<void>;
  /**
   * One sweep pass of the sweeping side. The deposits worker may hold the network's lock for a
   * pass of its own: a live batch is tracked by any process, whatever its settings (it cannot
   * sign, only follow). It waits for that lock.
   */
  pass(now?: Date): Promise<SweepRunReport>;
  /** Closes the sweeping side (a test that runs the CLI process instead). */
  closeContext(): Promise<void>;
}

/**
 * The set-up the EVM sweep suites whose passes the test runs share, registered as beforeAll and
 * afterAll in the calling describe: a devnet (optionally behind an RpcProxy) whose USDT is the
 * blacklisting NoReturnToken (the payer holds 10^12 units), a SweepDelegate for it and USDC, the
 * chain environment watching ETHEREUM, the API, a new chain for payouts and sweeps, a merchant,
 * a worker that only watches deposits (it starts before the sweep files are in the environment),
 * then the sweep files in the environment. The afterAll stops all of it in reverse order and gives
 * the environment back.
 */
export function useSweepSuite(options: SweepSuiteOptions): SweepSuite {
  let devnet: Devnet | undefined;
  let proxy: RpcProxy | undefined;
  let api: TestApi | undefined;
  let merchant: TestMerchant | undefined;
  let worker: INestApplicationContext | undefined;
  let context: INestApplicationContext | undefined;
  let environment: ReturnType<typeof useChainEnvironment> | undefined;
  let sweepEnv: Record<string, string> | undefined;
  let baseSettings: Record<string, unknown> = {};
  let usdt: Contract | undefined;
  let delegate: string | undefined;

  beforeAll(async () => {
    devnet = await startDevnet();
    if (options.proxy) proxy = await RpcProxy.start(devnet.rpcUrl);
    if (options.fundSweeper !== undefined) {
      await devnet.provider.send('anvil_setBalance', [
        options.sweeper.address,
        '0x' + options.fundSweeper.toString(16),
      ]);
    }
    const usdtAddress = await deployNoReturnToken(devnet);
    const owner = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    usdt = new Contract(usdtAddress, noReturnTokenAbi(), owner);
    await (await usdt.getFunction('mint')(DEVNET_ACCOUNTS.payer.address, 10n ** 12n)).wait();
    const sweep = await sweepEnvironment(
      devnet,
      options.settings,
      [usdtAddress, devnet.tokens.USDC.contract],
      options.sweeper,
    );
    delegate = sweep.delegate;
    sweepEnv = sweep.environment;
    baseSettings = JSON.parse(readFileSync(sweepEnv.TREASURY_FILE, 'utf8')).ETHEREUM;
    environment = useChainEnvironment(
      devnet.networksFileJson({
        confirmations: 1,
        ...(proxy ? { rpcUrls: [proxy.url] } : {}),
        tokens: { USDT: { contract: usdtAddress, decimals: 6 }, USDC: { ...devnet.tokens.USDC } },
      }),
      {
        WATCH_NETWORKS: 'ETHEREUM',
        DEPOSIT_SCAN_INTERVAL_MS: '200',
        HOT_WALLETS_FILE: sweepEnv.HOT_WALLETS_FILE,
        PAYOUT_REPLACE_AFTER_MS: '1000',
      },
    );
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    await startSweepsOnNewChain(api.dataSource);
    merchant = await api.createMerchant();
    // Deposits only: this worker starts before the sweep files are in the environment.
    worker = await startWorker();
    Object.assign(process.env, sweepEnv);
  }, TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await worker?.close();
    await api?.close();
    await proxy?.stop();
    await devnet?.stop();
    for (const name of Object.keys(sweepEnv ?? {})) delete process.env[name];
    environment?.restore();
  });

  const parts = startedParts<Omit<SweepSuite, 'useSettings' | 'pass' | 'closeContext'>>(
    'useSweepSuite',
    {
      devnet: () => devnet,
      proxy: () => proxy,
      api: () => api,
      merchant: () => merchant,
      usdt: () => usdt,
      delegate: () => delegate,
      context: () => context,
    },
  );
  const suite: SweepSuite = Object.assign(parts, {
    async useSettings(overrides: Record<string, unknown>): Promise<void> {
      await context?.close();
      writeFileSync(
        sweepEnv!.TREASURY_FILE,
        JSON.stringify({ ETHEREUM: { ...baseSettings, ...overrides } }),
      );
      context = await NestFactory.createApplicationContext(CliModule, { logger: false });
      await context.get(SweepKeys).register();
    },
    async pass(now?: Date): Promise<SweepRunReport> {
      const sweeping = suite.context;
      let report: SweepRunReport | null = null;
      await waitFor(
        async () => (report = await sweeping.get(TreasurySweeps).run('ETHEREUM', now)) !== null,
        TIMEOUT_MS,
        'the sweep lock',
      );
      return report!;
    },
    async closeContext(): Promise<void> {
      await context?.close();
      context = undefined;
    },
  });
  return suite;
}

/** useChainSuite's options, but the environment: the sweep files. */
export type SweepingChainSuiteOptions = Omit<ChainSuiteOptions, 'environment' | 'newChain'> & {
  /** The sweep files (sweepEnvironment's or topUpEnvironment's), written once the devnet runs. */
  sweepFiles: (devnet: Devnet) => Record<string, string> | Promise<Record<string, string>>;
};

/**
 * useChainSuite for a suite whose worker sweeps on its own schedule: the sweep files in the
 * environment, ETHEREUM watched every 200 ms, swept and tracked every 300 ms, and no earlier
 * suite's sweep in flight (newChain 'sweeps').
 */
export function useSweepingChainSuite(options: SweepingChainSuiteOptions): ChainSuite {
  const { sweepFiles, ...chainOptions } = options;
  return useChainSuite({
    ...chainOptions,
    environment: async ({ devnet }) => ({
      ...(await sweepFiles(devnet)),
      WATCH_NETWORKS: 'ETHEREUM',
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      TREASURY_SWEEP_INTERVAL_MS: '300',
      PAYOUT_TRACK_INTERVAL_MS: '300',
    }),
    newChain: 'sweeps',
  });
}
