import { NestFactory } from '@nestjs/core';
import { parseEther, Wallet } from 'ethers';
import { FundingBooks } from '@app/treasury';
import { CliModule } from '../../../apps/cli/src/cli.module';
import { DEVNET_ACCOUNTS } from '../../support/devnet';
import { tronAddressOf, tronTestKey, TRX } from '../../support/tron-sweep-env';
import { sendTrx, stakeTrx } from '../tron-chain';
import { TestApi, TestMerchant } from '../../support/test-app';
import { waitFor } from '../../support/wait-for';
import type { Cluster } from './cluster';

export interface SoakMerchant extends TestMerchant {
  /** Webhook endpoint ids: the steady receiver's and the flaky one's. */
  endpoints: { steady: string; flaky: string };
}

/**
 * What an operator and a merchant do once, before the load: the merchant and its key, two webhook
 * endpoints, the hot wallet funded on anvil and booked. Done with the API's and CLI's modules in
 * this process (as the existing soak does), which are closed before the nemesis starts: only the
 * spawned processes face the faults. The database is the run's own, created empty: no earlier
 * chain to forget (the end-to-end suites' "chain marked new" steps), so this needs nothing of the
 * spawned processes and runs while they boot.
 */
export async function prepareMerchant(receivers: {
  steady: string;
  flaky: string;
}): Promise<SoakMerchant> {
  const api = await TestApi.start();
  try {
    const merchant = await api.createMerchant({ name: 'Chaos soak shop' });
    const endpoint = async (url: string) =>
      (await api.post('/v1/webhook-endpoints', merchant, { url }).expect(201)).body.id as string;
    return {
      ...merchant,
      endpoints: {
        steady: await endpoint(receivers.steady),
        flaky: await endpoint(receivers.flaky),
      },
    };
  } finally {
    await api.close();
  }
}

const TRON_OPERATOR_KEY = tronTestKey('chaos soak tron operator');

/*
 * What the TRON side burns per minute of load, with twice that as margin (a 30-minute run with a
 * fixed 1,000 TRX left 69 TRON payouts Pending, hot_wallet_insufficient_gas 283 times). The load
 * takes at most a step a second (load.ts): 60 sessions a minute, a quarter on TRON (15), and 20
 * payouts, 30 % on TRON (6); about a quarter of the sessions end with a refund, so the TRON hot
 * wallet sends about 10 payouts a minute. Each is a USDT transfer() to a new holder: 130,285
 * energy burnt at 210 sun (the fake node's getEnergyFee) plus ~0.4 TRX of bandwidth = 27.8 TRX,
 * and the worker sends one only while the wallet holds the 30 TRX fee limit for each in flight.
 * Each TRON session's deposit is swept with energy the staking account delegates (at most
 * 130,285; the fake node gives 10 energy a day per TRX staked and a chain day is 4 hours of the
 * soak: none comes back within a run), and it pays the activation and bandwidth of the sweep's
 * steps (a few TRX).
 */
const TRON_HOT_SENDS_PER_MINUTE = 10n;
const TRON_FEE_LIMIT_TRX = 30n;
const TRON_SWEEPS_PER_MINUTE = 15n;
const SWEEP_ENERGY = 130_285n;
const ENERGY_PER_TRX_STAKED = 10n;
const SWEEP_STEPS_TRX = 5n;
const MARGIN = 2n;

/** TRX (whole) for the TRON hot wallet and the staking account of a run of `minutes` of load. */
export function tronFunding(minutes: number) {
  const perMinute = (trx: bigint) => BigInt(Math.ceil(minutes)) * trx * MARGIN;
  const staked =
    1_000_000n + perMinute((TRON_SWEEPS_PER_MINUTE * SWEEP_ENERGY) / ENERGY_PER_TRX_STAKED);
  return {
    hot: 1_000n + perMinute(TRON_HOT_SENDS_PER_MINUTE * TRON_FEE_LIMIT_TRX),
    staked,
    staking: staked + 100_000n + perMinute(TRON_SWEEPS_PER_MINUTE * SWEEP_STEPS_TRX),
  };
}

/**
 * The operator funds the hot wallets, the sweeper and the TRON staking account (which stakes
 * most of its TRX for the energy it lends the sweeps), and books it all once a worker
 * registered them (started while the workers boot: the transfers are mined and the operator's
 * module up by then). TRON payouts are paid from what the sweeps bring to the TRON hot wallet;
 * the TRX for their fees, and the stake for the sweeps' energy, grow with the run's minutes
 * (tronFunding).
 */
export async function fundHotWallet(cluster: Cluster, minutes: number): Promise<void> {
  const { devnet, hot, sweeper, tron } = cluster;
  const staking = tronAddressOf(cluster.stakingKey);
  const tronHot = tronAddressOf(cluster.tronHotKey);
  const funding = tronFunding(minutes);
  tron.setTrxBalance(
    tronAddressOf(TRON_OPERATOR_KEY),
    (funding.staking + funding.hot + 1_000n) * TRX,
  );
  const tronTxids = [
    await sendTrx(tron, TRON_OPERATOR_KEY, staking, funding.staking * TRX),
    await sendTrx(tron, TRON_OPERATOR_KEY, tronHot, funding.hot * TRX),
  ];
  tronTxids.push(await stakeTrx(tron, cluster.stakingKey, funding.staked * TRX));
  const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
  const hashes: string[] = [];
  for (const to of [hot.address, sweeper.address])
    hashes.push((await deployer.sendTransaction({ to, value: parseEther('50') })).hash);
  for (const currency of ['USDT', 'USDC'] as const)
    hashes.push((await devnet.transfer(currency, hot.address, '5000')).txHash);
  const operator = await NestFactory.createApplicationContext(CliModule, { logger: false });
  await operator.init();
  try {
    const { DataSource } = await import('typeorm');
    const dataSource = operator.get(DataSource);
    await waitFor(
      async () => {
        const [{ n }] = await dataSource.query(
          `SELECT (SELECT count(*) FROM hot_wallets WHERE network IN ('ETHEREUM', 'TRON'))
                + (SELECT count(*) FROM treasury_wallets
                    WHERE (network = 'ETHEREUM' AND lower(address) = lower($1))
                       OR (network = 'TRON' AND address = $2))
                  AS n`,
          [sweeper.address, staking],
        );
        return Number(n) === 4;
      },
      300_000,
      'a worker registered the ETHEREUM and TRON hot wallets, the sweeper and the staking account',
    );
    await devnet.provider.waitForTransaction(hashes[hashes.length - 1]);
    const books = operator.get(FundingBooks);
    for (const hash of hashes) await books.book('ETHEREUM', hash);
    for (const txid of tronTxids) await books.book('TRON', txid);
  } finally {
    await operator.close();
  }
}
