import { MAINNET_NETWORKS } from '../../networks/default-networks';
import { EvmRpc } from './evm-rpc';

describe('EvmRpc', () => {
  it('gives ethers a bare network: fee data comes from the configured RPC, never a gas station', async () => {
    const rpc = new EvmRpc(MAINNET_NETWORKS.POLYGON, {
      attempts: 1,
      baseDelayMs: 1,
      maxDelayMs: 1,
      timeoutMs: 1_000,
    });
    try {
      // A static network: getNetwork() answers without a request.
      const network = await rpc.call('getNetwork', (provider) => provider.getNetwork());
      expect(network.chainId).toBe(137n);
      expect(network.plugins).toEqual([]);
    } finally {
      rpc.close();
    }
  });
});
