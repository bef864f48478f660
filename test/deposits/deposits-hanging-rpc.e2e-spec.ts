import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, devnetNetworksFile, startDevnet } from '../support/devnet';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

/**
 * A hosted RPC that accepts requests and never answers is the worst failure: each call waits out
 * its whole timeout. It must cost its own network one timeout (then the next URL takes over), and
 * cost every other network nothing.
 */
describe('Deposit detection with a hanging RPC provider (worker, two networks)', () => {
  let devnet: Devnet;
  let hanging: RpcProxy;
  let api: TestApi;
  let merchant: TestMerchant;
  let worker: INestApplicationContext | undefined;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    devnet = await startDevnet();
    hanging = await RpcProxy.start(devnet.rpcUrl);
    const ethereum = devnetNetworksFile(devnet.rpcUrl, devnet.tokens, {
      // The first URL hangs; the second is the node itself.
      rpcUrls: [hanging.url, devnet.rpcUrl],
    }).networks.ETHEREUM;
    // The same devnet under a second network name: its own watcher loop, its own RPC.
    const bsc = devnetNetworksFile(devnet.rpcUrl, devnet.tokens).networks.ETHEREUM;
    environment = useChainEnvironment(
      JSON.stringify({ networks: { ETHEREUM: ethereum, BSC: bsc } }),
      {
        WATCH_NETWORKS: 'ETHEREUM,BSC',
      },
    );
    api = await TestApi.start();
    await forgetChain(api.app, 'ETHEREUM');
    await forgetChain(api.app, 'BSC');
    merchant = await api.createMerchant();
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await hanging?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  const paidAt = async (id: string): Promise<Date | null> => {
    const [row] = await api.dataSource.query(
      `SELECT paid_at FROM checkout_sessions WHERE id = $1 AND status = 'Paid'`,
      [id],
    );
    return row ? new Date(row.paid_at) : null;
  };

  it('detects on the healthy network at once and on the hanging one via its second URL', async () => {
    await hanging.down('hang');
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();

    const onEthereum = await createSession(api, merchant, {
      pricing_amount: '4',
      network: 'ETHEREUM',
    });
    const onBsc = await createSession(api, merchant, { pricing_amount: '6', network: 'BSC' });
    // Ethereum's payment first: it still must not be what BSC waits behind.
    await devnet.transfer('USDT', onEthereum.pay_address, '4');
    await devnet.transfer('USDT', onBsc.pay_address, '6');

    await waitFor(async () => (await paidAt(onBsc.id)) !== null, 60_000);
    await waitFor(async () => (await paidAt(onEthereum.id)) !== null, 90_000);
    const bscPaidAt = (await paidAt(onBsc.id)) as Date;
    const ethereumPaidAt = (await paidAt(onEthereum.id)) as Date;
    expect(bscPaidAt.getTime()).toBeLessThan(ethereumPaidAt.getTime());
    // The hanging URL cost one timeout (for the calls already in flight), not one per call:
    // while the watcher follows more blocks, every call goes to the URL that answered.
    const hungRequests = hanging.methods.length;
    await devnet.mine(3);
    const head = await devnet.head();
    await waitFor(async () => {
      const [cursor] = await api.dataSource.query(
        `SELECT last_scanned_block::int AS block FROM chain_cursors WHERE network = 'ETHEREUM'`,
      );
      return cursor.block >= head;
    }, 30_000);
    expect(hanging.methods.length).toBe(hungRequests);
  });
});
