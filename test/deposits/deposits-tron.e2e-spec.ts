import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains';
import { DepositWatcherService } from '@app/deposits';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { TestApi, TestMerchant } from '../support/test-app';
import { forgetChain } from '../support/chain-reset';
import { createSession, listSessions, readSession } from '../support/sessions-api';

const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const PAYER = TronWeb.address.fromPrivateKey('1'.repeat(64)) as string;

describe('Deposit watcher on TRON (fake full node, tronweb encoding)', () => {
  let node: FakeTronNode;
  let api: TestApi;
  let merchant: TestMerchant;
  let watcher: DepositWatcherService;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    node.mineEmpty(5);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
      }),
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    // This suite's node is a new chain: forget the one an earlier suite left as TRON.
    await forgetChain(api.app, 'TRON');
    merchant = await api.createMerchant();
  });

  afterAll(async () => {
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  it('detects a TRC-20 payment to the pay address and marks the session Paid', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '15', network: 'TRON' });
    const { txIds } = node.addTransferBlock([
      { contract: USDT, from: PAYER, to: session.pay_address, amount: 15_000_000n },
    ]);
    await watcher.scan('TRON');
    const paid = await readSession(api, merchant, session.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '15', net_amount: '14.85' });
    expect(paid.transactions).toEqual([
      expect.objectContaining({
        amount: '15',
        status: 'Confirmed',
        tx_hash: txIds[0],
        network: 'TRON',
      }),
    ]);
    expect(paid.transactions[0].tx_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('finds the session by the TRON transaction id', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '1', network: 'TRON' });
    const { txIds } = node.addTransferBlock([
      { contract: USDT, from: PAYER, to: session.pay_address, amount: 1_000_000n },
    ]);
    await watcher.scan('TRON');
    const found = await listSessions(api, merchant, { search_text: txIds[0] });
    expect(found.map((item) => item.id)).toEqual([session.id]);
  });

  it('reverts a TRON payment whose block is replaced', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '7', network: 'TRON' });
    const { blockNumber } = node.addTransferBlock([
      { contract: USDT, from: PAYER, to: session.pay_address, amount: 7_000_000n },
    ]);
    await watcher.scan('TRON');
    expect((await readSession(api, merchant, session.id)).status).toBe('Paid');
    node.reorg(blockNumber);
    node.mineEmpty(2);
    await watcher.scan('TRON');
    const reverted = await readSession(api, merchant, session.id);
    expect(reverted).toMatchObject({ status: 'Pending', amount_received: '0' });
    expect(reverted.transactions[0].status).toBe('Reverted');
  });

  it('keeps scanning after the node comes back, counting nothing twice', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '2', network: 'TRON' });
    await node.down('unavailable');
    await expect(watcher.scan('TRON')).rejects.toMatchObject({ kind: 'transient' });
    await node.up();
    node.addTransferBlock([
      { contract: USDT, from: PAYER, to: session.pay_address, amount: 2_000_000n },
    ]);
    await watcher.scan('TRON');
    await watcher.scan('TRON');
    const paid = await readSession(api, merchant, session.id);
    expect(paid).toMatchObject({ status: 'Paid', amount_received: '2' });
    expect(paid.transactions).toHaveLength(1);
  });
});
