import type { INestApplicationContext } from '@nestjs/common';
import { readFileSync, writeFileSync } from 'node:fs';
import { EvmSweeper } from '../../libs/treasury/src/sweeps/evm-sweeper';
import { SweepStatus } from '@app/treasury';
import { useChainSuite } from '../support/chain-suite';
import { startWorker } from '../support/in-process-worker';
import { deploySweepDelegate, Devnet } from '../support/devnet';
import { DEVNET_TREASURY, devnetSweeper, sweepEnvironment } from '../support/sweep-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 60_000;
// Nothing is ever signed in this suite, so its sweeper's nonce lane stays untouched.
const SWEEPER = devnetSweeper(8);

describe('EVM sweeps refuse a delegate that is not this configuration', () => {
  let worker: INestApplicationContext | undefined;
  const chain = useChainSuite({
    environment: async ({ devnet }) => {
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
      return {
        ...sweep.environment,
        WATCH_NETWORKS: 'ETHEREUM',
        DEPOSIT_SCAN_INTERVAL_MS: '200',
        TREASURY_SWEEP_INTERVAL_MS: '300',
      };
    },
    newChain: 'sweeps',
    timeoutMs: TIMEOUT_MS,
    cleanUp: async () => {
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

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
