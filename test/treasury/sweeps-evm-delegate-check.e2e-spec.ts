import type { INestApplicationContext } from '@nestjs/common';
import { readFileSync, writeFileSync } from 'node:fs';
import { EvmSweeper } from '../../libs/treasury/src/sweeps/evm-sweeper';
import { SweepStatus } from '@app/treasury';
import { startWorker } from '../support/in-process-worker';
import { useChainEnvironment } from '../support/chain-test-env';
import { deploySweepDelegate, Devnet, startDevnet } from '../support/devnet';
import { startPayoutsOnNewChain } from '../support/payout-chain';
import {
  DEVNET_TREASURY,
  devnetSweeper,
  startSweepsOnNewChain,
  sweepEnvironment,
} from '../support/sweep-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 60_000;
// Nothing is ever signed in this suite, so its sweeper's nonce lane stays untouched.
const SWEEPER = devnetSweeper(8);

describe('EVM sweeps refuse a delegate that is not this configuration', () => {
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let worker: INestApplicationContext | undefined;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    devnet = await startDevnet();
    const sweep = await sweepEnvironment(devnet, {}, undefined, SWEEPER);
    // A delegate whose HOT_WALLET is the treasury address, not the registered hot wallet: the
    // settings name it instead of the right one.
    const wrong = await deploySweepDelegate(devnet, {
      sweeper: SWEEPER.address,
      hotWallet: DEVNET_TREASURY,
      treasury: DEVNET_TREASURY,
      tokens: [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
    });
    const file = sweep.environment.TREASURY_FILE;
    const settings = JSON.parse(readFileSync(file, 'utf8')) as {
      ETHEREUM: { sweepDelegate: string };
    };
    settings.ETHEREUM.sweepDelegate = wrong;
    writeFileSync(file, JSON.stringify(settings));
    environment = useChainEnvironment(devnet.networksFileJson({ confirmations: 1 }), {
      ...sweep.environment,
      WATCH_NETWORKS: 'ETHEREUM',
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      TREASURY_SWEEP_INTERVAL_MS: '300',
    });
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    await startSweepsOnNewChain(api.dataSource);
    merchant = await api.createMerchant();
  }, TIMEOUT_MS);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await devnet?.stop();
    environment?.restore();
  });

  it(
    'signs nothing for a paid address and reports why in treasury:status',
    async () => {
      const { body } = await api
        .post('/v1/checkout/sessions', merchant, {
          pricing_amount: '10',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      const address = (body as { pay_address: string }).pay_address;
      await devnet.transfer('USDT', address, '10');
      worker = await startWorker();
      await waitFor(
        async () =>
          (await api.count(
            'session_transactions t JOIN checkout_sessions s ON s.id = t.session_id',
            `s.pay_address = $1 AND t.status = 'Confirmed'`,
            [address],
          )) === 1,
        TIMEOUT_MS,
        'the payment confirmed',
      );

      const report = await worker.get(EvmSweeper).plan('ETHEREUM');
      expect(report.refused).toBe(true);
      expect(report.sweeps).toEqual([]);
      const [status] = await worker.get(SweepStatus).report('ETHEREUM');
      expect(status.sweeping_refused).toMatch(/HOT_WALLET\(\)/);
      expect(await api.count('sweep_items', `lower(address) = lower($1)`, [address])).toBe(0);
      expect(await devnet.balanceOf('USDT', address)).toBe(10_000_000n);
    },
    2 * TIMEOUT_MS,
  );
});
