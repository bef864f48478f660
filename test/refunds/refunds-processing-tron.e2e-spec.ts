import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { LedgerAccounts } from '@app/ledger';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { parkEarlierPayouts, writeHotWalletsFile } from '../support/payout-chain';
import { balanceOf } from '../support/payouts-api';
import {
  creditBalanceOf,
  paidSession,
  postRefundDestination,
  postSessionRefund,
  RefundBody,
  refundEvents,
  unmatchedTransfer,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const HOT_PRIVATE_KEY = testKey('tron refunds e2e hot wallet');
const HOT = addressOf(HOT_PRIVATE_KEY);
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const TRX = 1_000_000n;
const newRecipient = () => addressOf(testKey(`refund recipient ${randomUUID()}`));

/*
 * TRON refunds end to end (docs/refunds.md): the running worker signs each refund's payout with
 * tronweb from the TRON hot wallet and broadcasts it to the fake TRON node, which verifies the
 * signature and moves the token; mined, the refund completes once, with its events and books.
 */
describe('TRON refunds through the signature-checking fake node', () => {
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
    merchant = await api.createMerchant({ name: 'TRON Refunds Shop' });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  const refundOf = async (id: string) =>
    (await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody;

  /** Waits for the worker to sign the refund, mines its broadcast, and waits for completion. */
  async function sendAndMine(id: string): Promise<RefundBody> {
    await waitFor(async () => (await refundOf(id)).status === 'Processing', 30_000, 'signed');
    const { tx_hash: txId } = await refundOf(id);
    await waitFor(
      async () => node.broadcasts.some((broadcast) => broadcast.txid === txId),
      30_000,
      'the broadcast',
    );
    node.mineBroadcasts();
    await waitFor(async () => (await refundOf(id)).status === 'Completed', 30_000, 'completed');
    return refundOf(id);
  }

  it('sends an underpaid session’s refund to the address the customer gives, once', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });
    const { body: created } = await postSessionRefund(api, merchant, session.id).expect(201);
    expect(created).toMatchObject({ status: 'requires_destination', amount: '40', fee: '1' });
    const customer = newRecipient();
    await postRefundDestination(api, session.id, created.id, { to_address: customer }).expect(200);

    const done = await sendAndMine(created.id);
    expect(done).toMatchObject({ to_address: customer, net_amount: '39', error_reason: null });
    expect(done.completed_at).not.toBeNull();
    // Sent once, for its net amount, in the transaction the refund names.
    expect(node.tokenBalance(USDT, customer)).toBe(39_000_000n);
    expect(node.broadcasts.filter((broadcast) => broadcast.txid === done.tx_hash)).toHaveLength(1);
    expect(await refundEvents(api, merchant, created.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
      { type: 'refund.pending', previous_status: 'requires_destination', status: 'Pending' },
      { type: 'refund.processing', previous_status: 'Pending', status: 'Processing' },
      { type: 'refund.completed', previous_status: 'Processing', status: 'Completed' },
    ]);
    // The 40 received went back: nothing available, nothing held.
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({ available: '0', held: '0' });
  }, 120_000);

  it('sends an unmatched transfer’s refund from refund_hold, the merchant’s balances untouched', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '10',
      received: '10',
      status: 'Paid',
    });
    const transferId = await unmatchedTransfer(api, merchant, session, {
      network: 'TRON',
      amount: '12',
    });
    const balance = await balanceOf(api, merchant, 'TRON', 'USDT');
    const refundHold = LedgerAccounts.refundHold('TRON', 'USDT');
    const held = await creditBalanceOf(api, refundHold);
    const sender = newRecipient();
    const { body: created } = await api
      .post(
        `/v1/unmatched-transfers/${transferId}/refunds`,
        merchant,
        { to_address: sender },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);

    const done = await sendAndMine(created.id);
    expect(done).toMatchObject({ unmatched_transfer_id: transferId, net_amount: '11' });
    expect(node.tokenBalance(USDT, sender)).toBe(11_000_000n);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balance);
    expect(await creditBalanceOf(api, refundHold)).toBe(held);
  }, 120_000);
});
