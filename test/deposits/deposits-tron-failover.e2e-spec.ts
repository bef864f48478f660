import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains';
import { DepositWatcherService } from '@app/deposits';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { TestApi, TestMerchant } from '../support/test-app';
import { TronProxy } from '../support/tron-proxy';

const SESSIONS = '/v1/checkout/sessions';
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const PAYER = TronWeb.address.fromPrivateKey('2'.repeat(64)) as string;

/**
 * TRON has no log filter: a scan reads each block's transaction infos, one request per block,
 * each of which may fail over on its own. A node that is behind answers [] for a block it does
 * not have, so a scan that failed over in the middle to such a node read real blocks as empty.
 */
describe('Deposit watcher on TRON with two RPC URLs, one lagging (fake full node)', () => {
  let node: FakeTronNode;
  let primary: TronProxy;
  let lagging: TronProxy;
  let api: TestApi;
  let merchant: TestMerchant;
  let watcher: DepositWatcherService;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    node = new FakeTronNode();
    await node.start();
    node.mineEmpty(5);
    primary = await TronProxy.start(node.url);
    lagging = await TronProxy.start(node.url);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: {
          TRON: { rpcUrls: [primary.url, lagging.url], publicRpcUrl: node.url, confirmations: 1 },
        },
      }),
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    await forgetChain(api.app, 'TRON');
    merchant = await api.createMerchant();
  });

  afterAll(async () => {
    await api?.close();
    await primary?.stop();
    await lagging?.stop();
    await node?.stop();
    environment?.restore();
  });

  const read = async (id: string) =>
    (await api.get(`${SESSIONS}/${id}`, merchant).expect(200)).body;

  it('reads a whole scan from the node that answered its head, never from a lagging backup', async () => {
    await watcher.scan('TRON');
    const { body: session } = await api
      .post(SESSIONS, merchant, {
        pricing_amount: '8',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);

    // The backup stops here; the first URL then fails the block reads of the new blocks.
    lagging.headCap = node.headBlockNumber;
    primary.failBlocksFrom = node.headBlockNumber + 1;
    node.mineEmpty(1);
    node.addTransferBlock([
      { contract: USDT, from: PAYER, to: session.pay_address, amount: 8_000_000n },
    ]);
    node.mineEmpty(3);
    // Failing over to the backup for those reads would pass the payment's block as empty.
    await expect(watcher.scan('TRON')).rejects.toThrow(/gettransactioninfobyblocknum/);
    expect(await read(session.id)).toMatchObject({ status: 'Pending', amount_received: '0' });

    // The backup catches up while the first URL still answers heads and fails block reads: the
    // next scan is the backup's, head and blocks.
    lagging.headCap = undefined;
    await watcher.scan('TRON');
    expect(await read(session.id)).toMatchObject({ status: 'Paid', amount_received: '8' });
  });
});
