import type { INestApplicationContext } from '@nestjs/common';
import { forgetChain } from './chain-reset';
import { useChainEnvironment } from './chain-test-env';
import { Devnet, DevnetOptions, NetworksFile, startDevnet } from './devnet';
import { startWorker } from './in-process-worker';
import { creditBalance } from './ledger-credit';
import { startPayoutsOnNewChain } from './payout-chain';
import { RpcProxy } from './rpc-proxy';
import { startedParts } from './suite-parts';
import { startSweepsOnNewChain } from './sweep-env';
import { TestApi, TestMerchant } from './test-app';

/** What a suite's chain is started with; everything is optional. */
export interface ChainSuiteOptions {
  /** anvil's options (block time, chain id, token decimals). */
  devnet?: DevnetOptions;
  /** An RpcProxy in front of the devnet, the only URL the networks file names. */
  proxy?: boolean;
  /** The devnet network's confirmations; 1 unless said. */
  confirmations?: number;
  /** Further fields of the devnet's ETHEREUM entry (rpcUrls, tokens, wsUrl...). */
  networksFile?: Partial<NetworksFile['networks']['ETHEREUM']>;
  /** Variables the apps are started with (and given back afterwards), read once the chain runs. */
  environment?:
    | Record<string, string>
    | ((chain: {
        devnet: Devnet;
        proxy: RpcProxy | undefined;
      }) => Record<string, string> | Promise<Record<string, string>>);
  /** The network name the devnet runs as; ETHEREUM. */
  network?: string;
  /**
   * What earlier suites left of the chain watched under that name: `forget` it (deposit suites),
   * or also put their payouts off (`payouts`) and check no sweep of theirs is in flight (`sweeps`);
   * `keep` leaves it to the suite (one that tests forgetting).
   */
  newChain?: 'forget' | 'payouts' | 'sweeps' | 'keep';
  /** The whole worker in this process (started after the API, closed first). */
  worker?: boolean;
  /**
   * A merchant of the suite's own (created last), `usdt` credited on the suite's network as a
   * confirmed deposit would; `false` for none.
   */
  merchant?: false | { name?: string; usdt?: string };
  /** beforeAll's timeout, for a loaded box. */
  timeoutMs?: number;
  /**
   * Run first in afterAll, while the API still runs (jest-circus runs a describe's after-hooks in
   * the order they were declared, so a suite's own afterAll would come after the API closed).
   */
  cleanUp?: (suite: ChainSuite) => Promise<void>;
}

/** What the suite's tests read; each throws if read before beforeAll has set it. */
export interface ChainSuite {
  readonly devnet: Devnet;
  readonly proxy: RpcProxy;
  readonly api: TestApi;
  readonly worker: INestApplicationContext;
  readonly merchant: TestMerchant;
  /** The networks file's path (NETWORKS_FILE). */
  readonly networksFile: string;
}

/**
 * The set-up most chain suites share, registered as beforeAll and afterAll in the calling
 * describe: a devnet, optionally an RPC proxy in front of it, the chain environment, the API in
 * process, the previous chain forgotten, optionally the worker, and a merchant. The afterAll stops
 * what was started in reverse order and gives the environment back, even after a failed start.
 */
export function useChainSuite(options: ChainSuiteOptions = {}): ChainSuite {
  const network = options.network ?? 'ETHEREUM';
  let devnet: Devnet | undefined;
  let proxy: RpcProxy | undefined;
  let api: TestApi | undefined;
  let worker: INestApplicationContext | undefined;
  let merchant: TestMerchant | undefined;
  let environment: ReturnType<typeof useChainEnvironment> | undefined;

  beforeAll(async () => {
    devnet = await startDevnet(options.devnet);
    if (options.proxy) proxy = await RpcProxy.start(devnet.rpcUrl);
    const variables =
      typeof options.environment === 'function'
        ? await options.environment({ devnet, proxy })
        : (options.environment ?? {});
    environment = useChainEnvironment(
      devnet.networksFileJson({
        ...(proxy ? { rpcUrls: [proxy.url] } : {}),
        confirmations: options.confirmations ?? 1,
        ...options.networksFile,
      }),
      variables,
    );
    api = await TestApi.start();
    const newChain = options.newChain ?? 'forget';
    if (newChain === 'forget') await forgetChain(api.app, network);
    else if (newChain !== 'keep') await startPayoutsOnNewChain(api, network);
    if (newChain === 'sweeps') await startSweepsOnNewChain(api.dataSource, network);
    if (options.worker) worker = await startWorker();
    if (options.merchant !== false) {
      const { usdt, ...merchantOptions } = options.merchant ?? {};
      merchant = await api.createMerchant(merchantOptions);
      if (usdt !== undefined) {
        await creditBalance(api.dataSource, {
          merchantId: merchant.id,
          network,
          currency: 'USDT',
          amount: usdt,
        });
      }
    }
  }, options.timeoutMs);

  afterAll(async () => {
    if (options.cleanUp && api) await options.cleanUp(suite);
    await worker?.close();
    await api?.close();
    await proxy?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  const suite = startedParts<ChainSuite>('useChainSuite', {
    devnet: () => devnet,
    proxy: () => proxy,
    api: () => api,
    worker: () => worker,
    merchant: () => merchant,
    networksFile: () => environment?.path,
  });
  return suite;
}
