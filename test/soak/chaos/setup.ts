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

/**
 * The operator funds the hot wallets, the sweeper and the TRON staking account (which stakes
 * most of its TRX for the energy it lends the sweeps), and books it all once a worker
 * registered them (started while the workers boot: the transfers are mined and the operator's
 * module up by then). TRON payouts are paid from what the sweeps bring to the TRON hot wallet.
 */
export async function fundHotWallet(cluster: Cluster): Promise<void> {
  const { devnet, hot, sweeper, tron } = cluster;
  const staking = tronAddressOf(cluster.stakingKey);
  const tronHot = tronAddressOf(cluster.tronHotKey);
  tron.setTrxBalance(tronAddressOf(TRON_OPERATOR_KEY), 2_000_000n * TRX);
  const tronTxids = [
    await sendTrx(tron, TRON_OPERATOR_KEY, staking, 1_100_000n * TRX),
    await sendTrx(tron, TRON_OPERATOR_KEY, tronHot, 1_000n * TRX),
  ];
  tronTxids.push(await stakeTrx(tron, cluster.stakingKey, 1_000_000n * TRX));
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
