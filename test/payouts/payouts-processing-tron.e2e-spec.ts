import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { PayoutSender } from '@app/payouts';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { creditBalance } from '../support/ledger-credit';
import { parkEarlierPayouts, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const HOT_PRIVATE_KEY = testKey('tron payouts e2e hot wallet');
const HOT = addressOf(HOT_PRIVATE_KEY);
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const TRX = 1_000_000n;

/*
 * TRON payouts built and signed with tronweb by the running worker and broadcast to the fake TRON
 * node, which verifies every signature with tronweb's own code and moves token balances.
 */
describe('TRON payouts through the signature-checking fake node', () => {
  let node: FakeTronNode;
  let api: TestApi;
  let worker: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    node.setTokenBalance(USDT, HOT, 1_000_000_000n);
    node.setTrxBalance(HOT, 1_000n * TRX);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
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
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();
    merchant = await api.createMerchant();
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  async function payout(id: string) {
    return (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body;
  }

  async function createPayout(amount: string, to: string): Promise<string> {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount, currency: 'USDT', network: 'TRON', to_address: to },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body.id;
  }

  const broadcastOf = (txId: string) => node.broadcasts.filter((b) => b.txid === txId);

  it('signs a TRC-20 transfer the node verifies, and completes when it is mined', async () => {
    const recipient = addressOf(testKey(`recipient ${randomUUID()}`));
    const id = await createPayout('25', recipient);
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    const { tx_hash: txId } = await payout(id);
    await waitFor(async () => broadcastOf(txId).length === 1, 20_000, 'the broadcast');
    const raw = broadcastOf(txId)[0].transaction as { raw_data: { fee_limit: number } };
    expect(raw.raw_data.fee_limit).toBe(30_000_000);

    node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(await payout(id)).toMatchObject({ tx_hash: txId, net_amount: '24' });
    expect(node.tokenBalance(USDT, recipient)).toBe(24_000_000n);
  });

  it('signs a new transaction only after the first one provably expired', async () => {
    const recipient = addressOf(testKey(`recipient ${randomUUID()}`));
    const id = await createPayout('10', recipient);
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    const { tx_hash: first } = await payout(id);
    await waitFor(async () => broadcastOf(first).length === 1, 20_000);
    // The node restarts and forgets it; its expiration passes, then the solidified head does too.
    node.dropBroadcasts();
    node.mineEmpty(20 + node.solidLag + 2);
    await waitFor(async () => (await payout(id)).tx_hash !== first, 30_000, 'a new transaction');
    const attempts: Array<{ tx_hash: string; status: string }> = await api.dataSource.query(
      `SELECT tx_hash, status FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
      [id],
    );
    expect(attempts.map((attempt) => attempt.status)).toEqual(['Expired', expect.any(String)]);
    const second = attempts[1].tx_hash;
    await waitFor(async () => broadcastOf(second).length === 1, 20_000);
    node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(await payout(id)).toMatchObject({ tx_hash: second });
    expect(node.tokenBalance(USDT, recipient)).toBe(9_000_000n);
  });

  it('never signs from a key that is not the registered hot wallet (another worker registered its own)', async () => {
    const sender = worker.get(PayoutSender);
    const other = addressOf(testKey('tron payouts e2e other worker'));
    await api.dataSource.query(`UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`, [
      other,
    ]);
    let id: string;
    try {
      id = await createPayout('3', addressOf(testKey(`recipient ${randomUUID()}`)));
      expect(await sender.send(id)).toBe('skipped');
      expect(await api.count('payout_attempts', 'payout_id = $1', [id])).toBe(0);
      expect((await payout(id)).status).toBe('Pending');
    } finally {
      await api.dataSource.query(`UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`, [
        HOT,
      ]);
    }
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
  });

  it('waits while the hot wallet has too little TRX for the fee limit', async () => {
    node.setTrxBalance(HOT, 1n * TRX);
    const recipient = addressOf(testKey(`recipient ${randomUUID()}`));
    let id: string;
    try {
      id = await createPayout('5', recipient);
      await waitFor(
        async () => (await payout(id)).pending_reason === 'hot_wallet_insufficient_gas',
        20_000,
      );
    } finally {
      node.setTrxBalance(HOT, 1_000n * TRX);
    }
    await waitFor(async () => (await payout(id)).status === 'Processing', 20_000);
    node.mineBroadcasts();
    await waitFor(async () => (await payout(id)).status === 'Completed', 20_000);
    expect(node.tokenBalance(USDT, recipient)).toBe(4_000_000n);
  });
});

describe('PAYOUT_HOT_WALLET_SHORTFALL=fail', () => {
  let node: FakeTronNode;
  let api: TestApi;
  let worker: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    node.setTokenBalance(USDT, HOT, 1_000_000n); // 1 USDT: less than any payout below
    node.setTrxBalance(HOT, 1_000n * TRX);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
      }),
      {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ TRON: HOT_PRIVATE_KEY }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_HOT_WALLET_SHORTFALL: 'fail',
      },
    );
    api = await TestApi.start();
    await parkEarlierPayouts(api.dataSource);
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  it('fails a payout the hot wallet cannot cover, sends nothing and releases the funds', async () => {
    const merchant = await api.createMerchant();
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '100',
    });
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        {
          amount: '50',
          currency: 'USDT',
          network: 'TRON',
          to_address: addressOf(testKey('shortfall recipient')),
        },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    await waitFor(
      async () => (await api.get(`/v1/payouts/${body.id}`, merchant)).body.status === 'Failed',
      20_000,
    );
    const { body: failed } = await api.get(`/v1/payouts/${body.id}`, merchant).expect(200);
    expect(failed).toMatchObject({
      error_reason: 'The hot wallet does not hold enough tokens for this payout.',
      tx_hash: null,
      pending_reason: null,
    });
    expect(node.broadcasts).toEqual([]);
    const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
    expect(balances).toEqual([
      { currency: 'USDT', network: 'TRON', sub_merchant_code: null, available: '100', held: '0' },
    ]);
  });
});
