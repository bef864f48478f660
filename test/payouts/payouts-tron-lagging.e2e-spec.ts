import type { INestApplicationContext } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { startWorker } from '../support/in-process-worker';
import { creditedMerchant } from '../support/ledger-credit';
import { parkEarlierPayouts, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { TronProxy } from '../support/tron-proxy';
import { waitFor } from '../support/wait-for';

const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const HOT_PRIVATE_KEY = testKey('tron lagging payouts hot wallet');
const HOT = addressOf(HOT_PRIVATE_KEY);
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const PAYOUTS = 60;

/*
 * TRON payouts behind a URL that answers 3 calls in 4 from a backend 25 blocks (over a
 * minute) behind, while the node forgets its pool now and then (a restart): transactions expire
 * unmined and are signed again, others are mined late in their window. A backend behind must
 * never "prove" an expiry: each payout is paid exactly once.
 */
describe('TRON payouts behind a lagging load balancer', () => {
  let node: FakeTronNode;
  let proxy: TronProxy;
  let api: TestApi;
  let worker: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    node = new FakeTronNode();
    await node.start();
    node.setTokenBalance(USDT, HOT, 1_000_000_000_000n);
    node.setTrxBalance(HOT, 1_000_000_000_000n);
    proxy = await TronProxy.start(node.url);
    proxy.lagging = { blocks: 25, share: 0.75 };
    environment = useChainEnvironment(
      JSON.stringify({
        networks: {
          TRON: { rpcUrls: [proxy.url], publicRpcUrl: proxy.url, confirmations: 30 },
        },
      }),
      {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ TRON: HOT_PRIVATE_KEY }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        PAYOUT_NETWORK_FEES: 'TRON=1',
      },
    );
    api = await TestApi.start();
    await parkEarlierPayouts(api.dataSource);
    worker = await startWorker();
    merchant = await creditedMerchant(api, { network: 'TRON', currency: 'USDT', amount: '100000' });
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await proxy?.stop();
    await node?.stop();
    environment?.restore();
  });

  it('pays each payout exactly once while transactions expire, are signed again and mine late', async () => {
    const recipients = Array.from({ length: PAYOUTS }, () =>
      addressOf(testKey(`lagging recipient ${randomUUID()}`)),
    );
    const ids: string[] = [];
    for (const to of recipients) {
      const { body } = await api
        .post(
          '/v1/payouts',
          merchant,
          { amount: '11', currency: 'USDT', network: 'TRON', to_address: to },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201);
      ids.push(body.id);
    }
    const finished = () =>
      api.count('payouts', `id = ANY($1) AND status IN ('Completed', 'Failed')`, [ids]);
    // The chain moves one block per poll. The node mines what its pool holds every 20 blocks, so
    // many transactions are mined late in their 20-block window and wait 30 confirmations: the
    // backend behind does not have them while the solidified head passes their expiration. Now
    // and then the node restarts and forgets its pool instead, so those transactions expire.
    let poll = 0;
    await waitFor(
      async () => {
        poll += 1;
        if (poll % 40 === 7) node.dropBroadcasts();
        else if (poll % 20 === 0) node.mineBroadcasts();
        else node.mineEmpty(1);
        return (await finished()) === PAYOUTS;
      },
      240_000,
      'every payout final',
    );

    const statuses = await api.dataSource.query(
      `SELECT status, count(*)::int AS count FROM payouts WHERE id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(statuses).toEqual([{ status: 'Completed', count: PAYOUTS }]);
    for (const to of recipients) expect(node.tokenBalance(USDT, to)).toBe(10_000_000n);
    // Some transactions expired and were signed again: the proofs were exercised.
    expect(
      await api.count('payout_attempts', `payout_id = ANY($1) AND status = 'Expired'`, [ids]),
    ).toBeGreaterThan(0);
  }, 300_000);
});
