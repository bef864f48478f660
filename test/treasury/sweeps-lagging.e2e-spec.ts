import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EvmSweeper } from '@app/treasury/sweeps/evm-sweeper';
import { SweepTracker } from '@app/treasury/sweeps/sweep-tracker';
import { SweepKeys } from '@app/treasury';
import { DepositWatcherService } from '@app/deposits';
import { CliModule } from '../../apps/cli/src/cli.module';
import { COMMANDS } from '../../apps/cli/src/commands';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, startDevnet } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { LaggingBalancer } from '../support/lagging-balancer';
import { startPayoutsOnNewChain } from '../support/payout-chain';
import { devnetSweeper, startSweepsOnNewChain, sweepEnvironment } from '../support/sweep-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 60_000;
const LAG = 6;

/*
 * The planner and the tracker behind a load balancer whose second backend is six blocks behind,
 * each step of a pass pointed at the backend that can mislead it: a balance read from the past
 * must neither clear an address (a zero from before its transfer) nor sweep it again (tokens
 * from before its sweep).
 */
describe('EVM sweeps behind a lagging RPC decide only from positive proofs', () => {
  let devnet: Devnet;
  let balancer: LaggingBalancer;
  let api: TestApi;
  let merchant: TestMerchant;
  let environment: ReturnType<typeof useChainEnvironment>;
  let sweepEnv: Record<string, string>;
  let context: INestApplicationContext | undefined;

  beforeAll(async () => {
    devnet = await startDevnet();
    await devnet.mine(4 * LAG);
    balancer = await LaggingBalancer.start(devnet.rpcUrl, { lagBlocks: LAG, mode: 'fresh' });
    const tokens = [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract];
    sweepEnv = (await sweepEnvironment(devnet, {}, tokens, devnetSweeper(7))).environment;
    // The sweep files come later: the worker here only watches deposits; the test runs the passes.
    environment = useChainEnvironment(
      devnet.networksFileJson({ rpcUrls: [balancer.url], confirmations: 1 }),
      {
        WATCH_NETWORKS: 'ETHEREUM',
        DEPOSIT_SCAN_INTERVAL_MS: '200',
        // The worker registers the hot wallet, the sweeps' destination.
        HOT_WALLETS_FILE: sweepEnv.HOT_WALLETS_FILE,
      },
    );
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    await startSweepsOnNewChain(api.dataSource);
    merchant = await api.createMerchant();
  }, TIMEOUT_MS);

  afterAll(async () => {
    await context?.close();
    await api?.close();
    await balancer?.stop();
    await devnet?.stop();
    for (const name of Object.keys(sweepEnv ?? {})) delete process.env[name];
    environment?.restore();
  });

  async function paidAddresses(amounts: string[]): Promise<string[]> {
    const addresses: string[] = [];
    for (const amount of amounts) {
      const { body } = await api
        .post('/v1/checkout/sessions', merchant, {
          pricing_amount: amount,
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      addresses.push(body.pay_address as string);
      await devnet.transfer('USDT', body.pay_address as string, amount);
    }
    const worker = await startWorker();
    try {
      await waitFor(
        async () =>
          (await api.count(
            'session_transactions t JOIN checkout_sessions s ON s.id = t.session_id',
            `s.pay_address = ANY($1) AND t.status = 'Confirmed'`,
            [addresses],
          )) === addresses.length,
        TIMEOUT_MS,
        'payments confirmed',
      );
    } finally {
      await worker.close();
    }
    return addresses;
  }

  async function pendingAddresses(addresses: string[]): Promise<number> {
    return api.count(
      'sweep_addresses',
      `network = 'ETHEREUM' AND address = ANY($1) AND pending_since IS NOT NULL`,
      [addresses],
    );
  }

  it(
    'neither clears an address on a zero from before its transfer nor sweeps it again on tokens from before its sweep',
    async () => {
      const addresses = await paidAddresses(['11', '12', '13']);
      Object.assign(process.env, sweepEnv);
      context = await NestFactory.createApplicationContext(CliModule, { logger: false });
      await context.get(SweepKeys).register();
      const sweeper = context.get(EvmSweeper);
      const tracker = context.get(SweepTracker);

      // Read from the past, the three addresses were empty: nothing may be cleared or signed.
      balancer.mode = 'lagging';
      const early = await sweeper.plan('ETHEREUM');
      expect(early.sweeps).toEqual([]);
      expect(early.emptied).toBe(0);
      expect(await pendingAddresses(addresses)).toBe(3);

      // The transfers are now older than the lag; the fresh backend signs the sweep, mined at once.
      await devnet.mine(2 * LAG);
      balancer.mode = 'fresh';
      const signed = await sweeper.plan('ETHEREUM');
      expect(signed.sweeps).toHaveLength(1);
      await devnet.mine(2);
      expect((await tracker.track('ETHEREUM')).completed).toBe(1);
      for (const address of addresses) expect(await devnet.balanceOf('USDT', address)).toBe(0n);

      // The lagging backend's head is before the sweep: its balances are the swept tokens.
      balancer.mode = 'lagging';
      const stale = await sweeper.plan('ETHEREUM');
      expect(stale.sweeps).toEqual([]);
      // This chain's only: a suite before this one in the worker's database may leave sweeps of
      // other networks in flight.
      expect(await api.count('sweeps', `network = 'ETHEREUM' AND status = 'Processing'`)).toBe(0);

      // Once a backend is past the sweep, the zero balances clear the addresses.
      await devnet.mine(2 * LAG);
      const cleared = await sweeper.plan('ETHEREUM');
      expect(cleared.sweeps).toEqual([]);
      expect(cleared.emptied).toBe(3);
      expect(await pendingAddresses(addresses)).toBe(0);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'treasury:cancel-nonce reads the nonce at the freshest block the service saw: a backend behind the block that used it journals no cancel',
    async () => {
      balancer.mode = 'fresh';
      const [address] = await paidAddresses(['14']);
      Object.assign(process.env, sweepEnv);
      context ??= await NestFactory.createApplicationContext(CliModule, { logger: false });
      await context.get(SweepKeys).register();
      await devnet.mine(2 * LAG);
      // The batch is signed and mined at once; the tracker has not seen it yet.
      const signed = await context.get(EvmSweeper).plan('ETHEREUM');
      expect(signed.sweeps).toHaveLength(1);
      const [sweep] = await api.dataSource.query(`SELECT id, nonce FROM sweeps WHERE id = $1`, [
        signed.sweeps[0],
      ]);
      await devnet.mine(1);
      // The deposit watcher scans past the block that used the nonce.
      await api.app.get(DepositWatcherService).scan('ETHEREUM');

      // Every answer from a backend whose head is before that block.
      balancer.mode = 'lagging';
      // Refused on the count at the block the watcher saw, which this backend does not have: not
      // as 'already used', nor on a fee or code read that failed first (sweeps review L3).
      await expect(
        COMMANDS['treasury:cancel-nonce'](
          context,
          { network: 'ETHEREUM', nonce: String(sweep.nonce) },
          [],
        ),
      ).rejects.toThrow(/^eth_getTransactionCount: JSON-RPC error -32000 header not found$/);
      expect(
        await api.count('sweep_attempts', `sweep_id = $1 AND step = 'cancel'`, [sweep.id]),
      ).toBe(0);

      balancer.mode = 'fresh';
      expect((await context.get(SweepTracker).track('ETHEREUM')).completed).toBe(1);
      expect(await devnet.balanceOf('USDT', address)).toBe(0n);
    },
    2 * TIMEOUT_MS,
  );
});
