import { createServer } from 'node:net';
import { EvmChainAdapter } from '@app/chains/adapters/evm/evm-chain-adapter';
import { HeadSubscription } from '@app/chains/adapters/chain-adapter';
import { NetworkConfig } from '@app/chains/networks/network.types';
import { Devnet, DEVNET_CHAIN_ID, startDevnet, webSocketUrlOf } from '../support/devnet';
import { waitFor } from '../support/wait-for';

const WAIT_MS = 60_000;

/** A port nothing listens on (yet): the system's pick, released at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('EVM new heads over WebSocket (anvil)', () => {
  const devnets: Devnet[] = [];
  const subscriptions: HeadSubscription[] = [];
  const afterCleanup: Array<() => void> = [];

  afterEach(async () => {
    afterCleanup.splice(0).forEach((cleanup) => cleanup());
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.close()));
    await Promise.all(devnets.splice(0).map((devnet) => devnet.stop()));
  });

  function follow(network: NetworkConfig, wsUrl: string) {
    const heads: number[] = [];
    const problems: Array<{ reason: string; failures: number }> = [];
    const subscription = new EvmChainAdapter({ ...network, wsUrl }).followHeads(
      (head) => heads.push(head),
      (reason, failures) => problems.push({ reason, failures }),
    );
    if (!subscription) throw new Error('no subscription for a network with a wsUrl');
    subscriptions.push(subscription);
    return { heads, problems, subscription };
  }

  it('calls back with each new block number as it is mined', async () => {
    const devnet = await startDevnet();
    devnets.push(devnet);
    const { heads } = follow(devnet.networkConfig(), webSocketUrlOf(devnet.rpcUrl));
    const start = await devnet.head();
    // The subscription may not be registered when the first block is mined: mine until seen.
    await waitFor(
      async () => {
        await devnet.mine();
        return heads.length > 0;
      },
      WAIT_MS,
      'a first head',
    );
    const seen = heads.length;
    await devnet.mine(3);
    const last = await devnet.head();
    await waitFor(async () => heads.at(-1) === last, WAIT_MS, `head ${last}`);
    expect(heads.length).toBeGreaterThanOrEqual(seen + 3);
    expect(heads.every((head) => head > start)).toBe(true);
  });

  it('reports a node it cannot reach and subscribes once the node is up', async () => {
    // A lost socket must leave no promise rejected unhandled (it would end the worker).
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    afterCleanup.push(() => process.off('unhandledRejection', record));
    const port = await freePort();
    const wsUrl = `ws://127.0.0.1:${port}`;
    const { heads, problems } = follow(unreachable(`http://127.0.0.1:${port}`), wsUrl);
    await waitFor(async () => problems.length > 1, WAIT_MS, 'two reported connection failures');
    expect(problems.slice(0, 2).map((problem) => problem.failures)).toEqual([1, 2]);
    expect(problems[0].reason).not.toContain(wsUrl);

    const devnet = await startDevnet({ port });
    devnets.push(devnet);
    await waitFor(
      async () => {
        await devnet.mine();
        return heads.length > 0;
      },
      WAIT_MS,
      'a head after the node came up',
    );
    expect(unhandled).toEqual([]);
  });

  it('calls back no more once closed', async () => {
    const devnet = await startDevnet();
    devnets.push(devnet);
    const { heads, subscription } = follow(devnet.networkConfig(), webSocketUrlOf(devnet.rpcUrl));
    await waitFor(
      async () => {
        await devnet.mine();
        return heads.length > 0;
      },
      WAIT_MS,
      'a first head',
    );
    await subscription.close();
    const seen = heads.length;
    const before = await devnet.head();
    await devnet.mine(2);
    // A head mined after close would have arrived by the time a later RPC call answers.
    await waitFor(async () => (await devnet.head()) === before + 2, WAIT_MS, 'two more blocks');
    expect(heads.length).toBe(seen);
  });

  it('is not offered without a wsUrl (the watcher polls)', () => {
    const adapter = new EvmChainAdapter(unreachable('http://127.0.0.1:1'));
    expect(adapter.followHeads(jest.fn(), jest.fn())).toBeNull();
  });
});

/** ETHEREUM at an RPC URL where no node runs (yet), with the devnet's chain id. */
function unreachable(rpcUrl: string): NetworkConfig {
  return {
    name: 'ETHEREUM',
    displayName: 'devnet',
    chainFamily: 'EVM',
    chainId: DEVNET_CHAIN_ID,
    rpcUrls: [rpcUrl],
    publicRpcUrl: rpcUrl,
    confirmations: 1,
    tokens: {},
  };
}
