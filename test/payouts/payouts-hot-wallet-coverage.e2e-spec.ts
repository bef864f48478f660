import { randomUUID } from 'node:crypto';
import { parseUnits, Wallet } from 'ethers';
import { FEE_CACHE_MS } from '../../libs/payouts/src/processing/payout-signer';
import { useChainSuite } from '../support/chain-suite';
import type { Devnet } from '../support/devnet';
import { setTokenBalance, transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// A hot wallet of this suite's own: the devnet's is shared by every payout suite, and their
// payouts' nonces (payout_nonces) on earlier chains would count as committed against it here.
const HOT_KEY = Wallet.createRandom();
const HOT_WALLET = HOT_KEY.address;
const units = (amount: string) => parseUnits(amount, 6);

/*
 * What the hot wallet holds is promised once: claims reserve it under the wallet's row lock, and
 * a transfer already mined is not counted again while it waits for its confirmations.
 */
describe('Payouts never promise the hot wallet more than it holds', () => {
  const chain = useChainSuite({
    confirmations: 3,
    environment: async ({ devnet }) => {
      await devnet.provider.send('anvil_setBalance', [
        HOT_WALLET,
        '0x' + (10n ** 20n).toString(16),
      ]);
      return {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: HOT_KEY.privateKey }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        PAYOUT_REPLACE_AFTER_MS: '600000',
        PAYOUT_NETWORK_FEES: 'ETHEREUM=0',
        // A shortfall fails the payout: a wrong one shows as Failed.
        PAYOUT_HOT_WALLET_SHORTFALL: 'fail',
      };
    },
    newChain: 'payouts',
    worker: true,
    merchant: { usdt: '10000' },
    cleanUp: async ({ devnet }) => {
      await devnet.provider.send('evm_setAutomine', [true]);
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  async function createPayout(amount: string, to = Wallet.createRandom().address) {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount, currency: 'USDT', network: 'ETHEREUM', to_address: to },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body as { id: string };
  }

  const payoutsOf = (ids: string[]) =>
    api.dataSource.query(
      `SELECT id, status, pending_reason FROM payouts WHERE id = ANY($1) ORDER BY id`,
      [ids],
    ) as Promise<Array<{ id: string; status: string; pending_reason: string | null }>>;

  it('a burst signs no more than the wallet holds; the rest wait, none fails', async () => {
    await devnet.provider.send('evm_setAutomine', [false]);
    try {
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, units('95'));
      const ids = (await Promise.all(Array.from({ length: 20 }, () => createPayout('10')))).map(
        (p) => p.id,
      );
      await waitFor(
        async () =>
          (await payoutsOf(ids)).every((p) => p.status === 'Processing' || p.pending_reason),
        60_000,
        'every payout claimed or waiting',
      );
      const payouts = await payoutsOf(ids);
      expect(payouts.filter((p) => p.status === 'Processing')).toHaveLength(9);
      expect(payouts.filter((p) => p.status === 'Pending')).toHaveLength(11);
      expect(
        new Set(payouts.filter((p) => p.status === 'Pending').map((p) => p.pending_reason)),
      ).toEqual(new Set(['hot_wallet_insufficient_token']));

      // Mined: nine transfers, none reverted; the rest are sent once the wallet is refilled.
      await devnet.provider.send('evm_mine', []);
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, units('1000'));
      await devnet.provider.send('evm_setAutomine', [true]);
      await waitFor(
        async () => {
          await devnet.provider.send('evm_mine', []);
          return (await payoutsOf(ids)).every((p) => p.status === 'Completed');
        },
        60_000,
        'every payout Completed',
      );
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('a burst never bids more gas than the wallet can pay for all of it', async () => {
    await devnet.provider.send('evm_setAutomine', [false]);
    // Every payout below must bid the same fee. No block is mined from here on, so the node's
    // suggestion is fixed, but the worker keeps a suggestion for FEE_CACHE_MS,
    // and the one it holds may come from before the previous test's last (empty, base-fee
    // lowering) blocks: the first payout would then bid more than the burst, and a third
    // would fit in the room sized from it (seen in a CI run). Let that suggestion expire.
    const staleSuggestionsExpired = Date.now() + 2 * FEE_CACHE_MS;
    await waitFor(async () => Date.now() > staleSuggestionsExpired, 10_000, 'stale fees expired');
    const native = await devnet.provider.getBalance(HOT_WALLET);
    try {
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, units('1000'));
      const first = await createPayout('10');
      await waitFor(
        async () => (await payoutsOf([first.id]))[0].status === 'Processing',
        30_000,
        'the first payout signed',
      );
      const [{ cost }] = await api.dataSource.query(
        `SELECT (gas_limit * max_fee_per_gas)::text AS cost FROM payout_attempts WHERE payout_id = $1`,
        [first.id],
      );
      // Room for the first transaction's fee and two and a half more.
      const gas = BigInt(cost);
      await devnet.provider.send('anvil_setBalance', [
        HOT_WALLET,
        '0x' + (gas + (gas * 5n) / 2n).toString(16),
      ]);
      const ids = (await Promise.all(Array.from({ length: 5 }, () => createPayout('10')))).map(
        (p) => p.id,
      );
      await waitFor(
        async () =>
          (await payoutsOf(ids)).every((p) => p.status === 'Processing' || p.pending_reason),
        60_000,
        'every payout claimed or waiting',
      );
      const payouts = await payoutsOf(ids);
      expect(payouts.filter((p) => p.status === 'Processing')).toHaveLength(2);
      expect(
        payouts.filter((p) => p.pending_reason === 'hot_wallet_insufficient_gas'),
      ).toHaveLength(3);

      await devnet.provider.send('anvil_setBalance', [HOT_WALLET, '0x' + native.toString(16)]);
      await devnet.provider.send('evm_setAutomine', [true]);
      await waitFor(
        async () => {
          await devnet.provider.send('evm_mine', []);
          return (await payoutsOf([first.id, ...ids])).every((p) => p.status === 'Completed');
        },
        60_000,
        'every payout Completed',
      );
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('a transfer mined but not yet confirmed is not counted twice', async () => {
    await setTokenBalance(devnet, 'USDT', HOT_WALLET, units('30'));
    const first = await createPayout('20');
    await waitFor(
      async () =>
        (await transfersFrom(devnet, 'USDT', HOT_WALLET)).length > 0 &&
        (await devnet.balanceOf('USDT', HOT_WALLET)) === units('10'),
      30_000,
      'the first transfer mined',
    );
    expect((await payoutsOf([first.id]))[0].status).toBe('Processing');

    // The wallet holds 10 after the first transfer: exactly enough for the second.
    const second = await createPayout('10');
    await waitFor(
      async () => (await payoutsOf([second.id]))[0].status !== 'Pending',
      30_000,
      'the second payout claimed',
    );
    expect((await payoutsOf([second.id]))[0].status).toBe('Processing');
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        const statuses = (await payoutsOf([first.id, second.id])).map((p) => p.status);
        return statuses.every((status) => status === 'Completed');
      },
      60_000,
      'both Completed',
    );
    expect(await devnet.balanceOf('USDT', HOT_WALLET)).toBe(0n);
  });
});
