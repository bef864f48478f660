import type { INestApplicationContext } from '@nestjs/common';
import { useChainEnvironment } from './chain-test-env';
import { FakeTronNode } from './fake-tron-node';
import { startWorker } from './in-process-worker';
import { creditedMerchant } from './ledger-credit';
import { parkEarlierPayouts, writeHotWalletsFile } from './payout-chain';
import { postPayout, randomTronAddress } from './payouts-api';
import { startedParts } from './suite-parts';
import { TestApi, TestMerchant } from './test-app';
import { TRON_USDT, tronAddressOf, tronTestKey } from './tron-keys';
import { TronProxy } from './tron-proxy';

/** What a TRON suite's chain is started with. */
export interface TronSuiteOptions {
  /** The label the hot wallet's fixed test key is hashed from: the suite's own. */
  hotWallet: string;
  /** What the hot wallet holds on the node at the start, in base units (sun, token units). */
  hotWalletHolds?: { trx?: bigint; usdt?: bigint };
  /**
   * A TronProxy in front of the node, the only URL the networks file names; a function sets the
   * proxy's faults up before any app starts.
   */
  proxy?: boolean | ((proxy: TronProxy) => void);
  /** The TRON network's confirmations; 1 unless said. */
  confirmations?: number;
  /**
   * Variables the apps are started with besides WATCH_NETWORKS=none, HOT_WALLETS_FILE (the hot
   * wallet) and PAYOUT_TRACK_INTERVAL_MS=200, which it may override.
   */
  environment?: Record<string, string>;
  /** The whole worker in this process (started after the API, closed first). */
  worker?: boolean;
  /** A merchant of the suite's own, `usdt` credited on TRON as a confirmed deposit would; `false` for none. */
  merchant?: false | { usdt?: string };
  /** Run first in afterAll, while the API still runs (see useChainSuite). */
  cleanUp?: (suite: TronSuite) => Promise<void>;
}

/** What the suite's tests read; each started part throws if read before beforeAll has set it. */
export interface TronSuite {
  /** The hot wallet's fixed key and address: known before anything starts. */
  readonly hotWallet: { privateKey: string; address: string };
  readonly node: FakeTronNode;
  readonly proxy: TronProxy;
  readonly api: TestApi;
  readonly worker: INestApplicationContext;
  readonly merchant: TestMerchant;
  /** POST /v1/payouts of `amount` USDT on TRON by the suite's merchant, to a fresh address unless `to`; its id. */
  createPayout(amount: string, to?: string): Promise<string>;
}

/**
 * The set-up the TRON payout suites share, registered as beforeAll and afterAll in the calling
 * describe: the signature-checking fake TRON node with the hot wallet's balances, optionally a
 * TronProxy in front of it, the chain environment, the API in process, earlier suites' Pending
 * payouts put off (a worker here would send them from this hot wallet), optionally the worker,
 * and a merchant. The afterAll stops what was started in reverse order and gives the environment
 * back, even after a failed start.
 */
export function useTronSuite(options: TronSuiteOptions): TronSuite {
  const privateKey = tronTestKey(options.hotWallet);
  const hotWallet = { privateKey, address: tronAddressOf(privateKey) };
  let node: FakeTronNode | undefined;
  let proxy: TronProxy | undefined;
  let api: TestApi | undefined;
  let worker: INestApplicationContext | undefined;
  let merchant: TestMerchant | undefined;
  let environment: ReturnType<typeof useChainEnvironment> | undefined;

  beforeAll(async () => {
    node = new FakeTronNode();
    await node.start();
    const { trx, usdt } = options.hotWalletHolds ?? {};
    if (usdt !== undefined) node.setTokenBalance(TRON_USDT, hotWallet.address, usdt);
    if (trx !== undefined) node.setTrxBalance(hotWallet.address, trx);
    if (options.proxy) {
      proxy = await TronProxy.start(node.url);
      if (typeof options.proxy === 'function') options.proxy(proxy);
    }
    const url = proxy?.url ?? node.url;
    const networks = {
      TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: options.confirmations ?? 1 },
    };
    environment = useChainEnvironment(JSON.stringify({ networks }), {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ TRON: privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      ...options.environment,
    });
    api = await TestApi.start();
    await parkEarlierPayouts(api.dataSource);
    if (options.worker) worker = await startWorker();
    const credit = options.merchant === false ? undefined : options.merchant?.usdt;
    if (credit !== undefined) {
      merchant = await creditedMerchant(api, { network: 'TRON', currency: 'USDT', amount: credit });
    } else if (options.merchant !== false) merchant = await api.createMerchant();
  });

  afterAll(async () => {
    if (options.cleanUp && api) await options.cleanUp(suite);
    await worker?.close();
    await api?.close();
    await proxy?.stop();
    await node?.stop();
    environment?.restore();
  });

  const parts = startedParts<Omit<TronSuite, 'hotWallet' | 'createPayout'>>('useTronSuite', {
    node: () => node,
    proxy: () => proxy,
    api: () => api,
    worker: () => worker,
    merchant: () => merchant,
  });
  const suite: TronSuite = Object.assign(parts, {
    hotWallet,
    async createPayout(amount: string, to = randomTronAddress()): Promise<string> {
      const body = { amount, currency: 'USDT', network: 'TRON', to_address: to };
      const { body: created } = await postPayout(suite.api, suite.merchant, body).expect(201);
      return (created as { id: string }).id;
    },
  });
  return suite;
}
