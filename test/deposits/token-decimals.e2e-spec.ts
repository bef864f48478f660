import { INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DepositWatcherService } from '@app/deposits';
import { WatchedTokens } from '@app/deposits/watched-tokens';
import { TokenDecimalsCheck } from '../../apps/worker/src/deposits/token-decimals.check';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { DEVNET_TOKEN_DECIMALS, Devnet, startDevnet } from '../support/devnet';
import { RpcProxy, rpcResultReply } from '../support/rpc-proxy';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession, readSession } from '../support/sessions-api';

// What an operator might type for USDT when copying BSC's entry: the devnet token has 6.
const WRONG_DECIMALS = 18;

describe('Token decimals checked against the contract (anvil ERC-20 with 6 decimals)', () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi | undefined;
  let worker: INestApplicationContext | undefined;
  let environment: ReturnType<typeof useChainEnvironment> | undefined;

  beforeAll(async () => {
    devnet = await startDevnet();
    proxy = await RpcProxy.start(devnet.rpcUrl);
    expect(devnet.tokens.USDT.decimals).toBe(DEVNET_TOKEN_DECIMALS);
  });

  afterEach(async () => {
    await worker?.close();
    await api?.close();
    worker = undefined;
    api = undefined;
    environment?.restore();
    environment = undefined;
    proxy.intercept(undefined);
    await proxy.up();
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  /** ETHEREUM on the devnet, USDT with the given decimals, USDC right. */
  const useNetworks = (
    usdtDecimals: number,
    extra: Record<string, string> = {},
    rpcUrl?: string,
  ) => {
    environment = useChainEnvironment(
      devnet.networksFileJson({
        ...(rpcUrl ? { rpcUrls: [rpcUrl] } : {}),
        tokens: {
          USDT: { contract: devnet.tokens.USDT.contract, decimals: usdtDecimals },
          USDC: { ...devnet.tokens.USDC },
        },
      }),
      extra,
    );
  };
  const startApi = async (): Promise<TestApi> => {
    api = await TestApi.start();
    return api;
  };
  const transactionsOf = (app: TestApi, sessionId: string) =>
    app.count('session_transactions', 'session_id = $1', [sessionId]);

  it('holds the network while a token has wrong decimals, and credits every payment once they are right', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    useNetworks(WRONG_DECIMALS);
    const app = await startApi();
    await forgetChain(app.app, 'ETHEREUM');
    const watcher = app.app.get(DepositWatcherService);
    const merchant = await app.createMerchant();
    const inUsdt = await createSession(app, merchant, { pricing_amount: '10' });
    const inUsdc = await createSession(app, merchant, { pricing_amount: '5', currency: 'USDC' });

    await devnet.transfer('USDT', inUsdt.pay_address, '10');
    await devnet.transfer('USDC', inUsdc.pay_address, '5');
    const held = /USDT is configured with 18 decimals, its contract has 6: detection is held/;
    await expect(watcher.scan('ETHEREUM')).rejects.toThrow(held);
    await devnet.mine(2);
    await expect(watcher.scan('ETHEREUM')).rejects.toThrow(held);

    // Nothing is credited on the network: USDT would have been credited 10^-12 of the payment,
    // and a tick with USDC alone would move the cursor past the USDT payment for good.
    for (const session of [inUsdt, inUsdc]) {
      expect(await readSession(app, merchant, session.id)).toMatchObject({
        status: 'Pending',
        amount_received: '0',
        transactions: [],
      });
    }
    expect(await transactionsOf(app, inUsdt.id)).toBe(0);
    // The network's status says why, for GET /v1/networks.
    const [status] = await app.dataSource.query(
      `SELECT last_error FROM watcher_status WHERE network = 'ETHEREUM'`,
    );
    expect(status.last_error).toMatch(held);

    const refused = {
      network: 'ETHEREUM',
      currency: 'USDT',
      contract: devnet.tokens.USDT.contract,
      configured: WRONG_DECIMALS,
      actual: DEVNET_TOKEN_DECIMALS,
    };
    expect(app.app.get(WatchedTokens).refusedTokens()).toEqual([refused]);
    expect(errors).toHaveBeenCalledWith(
      refused,
      expect.stringMatching(
        /^ETHEREUM USDT: configured with 18 decimals, but the contract .* has 6\. Deposit detection on ETHEREUM is HELD/,
      ),
    );

    // The hold lasts longer than a new cursor would look back (100 blocks): the network's cursor
    // was set by its first tick, held or not, so the blocks of the hold are scanned all the same.
    await devnet.mine(150);

    // The decimals fixed (and the process restarted): both payments made meanwhile are credited.
    await app.close();
    environment?.restore();
    useNetworks(DEVNET_TOKEN_DECIMALS);
    const fixed = await startApi();
    await fixed.app.get(DepositWatcherService).scan('ETHEREUM');

    const paid = await readSession(fixed, merchant, inUsdt.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '10' });
    expect(paid.transactions).toEqual([
      expect.objectContaining({ amount: '10', status: 'Confirmed' }),
    ]);
    expect(await readSession(fixed, merchant, inUsdc.id)).toMatchObject({
      status: 'Paid',
      amount_received: '5',
    });
    expect(fixed.app.get(WatchedTokens).refusedTokens()).toEqual([]);
  });

  it('asks the next RPC URL when the first answers decimals() with nothing (a node not synced)', async () => {
    // The first URL follows the head but has no contract state yet: every eth_call answers "0x",
    // as for an address without a contract. It answers without failing, so calls stick to it.
    proxy.intercept((request) =>
      request.method === 'eth_call' ? rpcResultReply(request, '0x') : undefined,
    );
    environment = useChainEnvironment(
      devnet.networksFileJson({ rpcUrls: [proxy.url, devnet.rpcUrl] }),
    );
    const app = await startApi();
    await forgetChain(app.app, 'ETHEREUM');
    const watcher = app.app.get(DepositWatcherService);
    const merchant = await app.createMerchant();
    const session = await createSession(app, merchant, { pricing_amount: '4' });
    await devnet.transfer('USDT', session.pay_address, '4');

    await expect(watcher.scan('ETHEREUM')).rejects.toThrow(
      /decimals\(\) of US.. could not be checked/,
    );
    await watcher.scan('ETHEREUM');
    expect(await readSession(app, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '4',
    });
  });

  it('checks at worker start and says so loudly', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    useNetworks(WRONG_DECIMALS, { WATCH_NETWORKS: 'ETHEREUM' });
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();

    const checks = await worker.get(TokenDecimalsCheck).done;
    expect(checks.map((check) => [check.token.currency, check.status]).sort()).toEqual([
      ['USDC', 'verified'],
      ['USDT', 'refused'],
    ]);
    expect(worker.get(WatchedTokens, { strict: false }).refusedTokens()).toEqual([
      expect.objectContaining({ currency: 'USDT', configured: 18, actual: 6 }),
    ]);
    expect(errors).toHaveBeenCalledWith(
      { network: 'ETHEREUM', currency: 'USDT', configured: 18, actual: 6 },
      expect.stringMatching(
        /^WRONG TOKEN DECIMALS: ETHEREUM USDT is configured with 18, its contract has 6/,
      ),
    );
  });

  it('starts the worker while the RPC is down, and watches once the decimals are confirmed', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    await proxy.down('refuse');
    useNetworks(DEVNET_TOKEN_DECIMALS, { WATCH_NETWORKS: 'ETHEREUM' }, proxy.url);
    const app = await startApi();
    const merchant = await app.createMerchant();
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();

    const checks = await worker.get(TokenDecimalsCheck).done;
    expect(checks.map((check) => check.status)).toEqual(['unverified', 'unverified']);
    const watchedTokens = worker.get(WatchedTokens, { strict: false });
    expect(watchedTokens.unverifiedTokens()).toEqual([
      expect.objectContaining({ currency: 'USDC', transient: true }),
      expect.objectContaining({ currency: 'USDT', transient: true }),
    ]);
    expect(warnings).toHaveBeenCalledWith(
      expect.objectContaining({ network: 'ETHEREUM' }),
      expect.stringMatching(/^Token decimals not verified at start/),
    );

    // The node comes back: the watcher checks on its next tick, then credits.
    await proxy.up();
    const session = await createSession(app, merchant, { pricing_amount: '3' });
    await devnet.transfer('USDT', session.pay_address, '3');
    await waitFor(
      async () => (await readSession(app, merchant, session.id)).status === 'Paid',
      60_000,
      'the session to be Paid',
    );
    expect(watchedTokens.unverifiedTokens()).toEqual([]);
  });
});
