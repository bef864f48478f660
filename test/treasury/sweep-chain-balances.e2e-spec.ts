import { getAddress, hexlify, randomBytes } from 'ethers';
import { EvmSweepChain } from '@app/treasury/sweeps/evm-sweep-chain';
import { Devnet, startDevnet } from '../support/devnet';

// The sweep planner reads every pending address's balance through Multicall3 in batches of 500,
// encoded and decoded by hand (ethers' coder took seconds a batch). Exact balances, in the
// addresses' order across batches, at the block asked for.
describe('EvmSweepChain.tokenBalances: bulk balances through Multicall3', () => {
  let devnet: Devnet;
  let chain: EvmSweepChain;

  beforeAll(async () => {
    devnet = await startDevnet();
    chain = new EvmSweepChain(devnet.networkConfig());
  });

  afterAll(async () => {
    chain?.close();
    await devnet?.stop();
  });

  it('reads 1,100 addresses (three batches) exactly, at the block given', async () => {
    const addresses = Array.from({ length: 1_100 }, () => getAddress(hexlify(randomBytes(20))));
    const before = await devnet.head();
    // One funded address in each batch, the last one at the very end.
    const funded = new Map([
      [addresses[7], 1_250_000n],
      [addresses[600], 3_000_001n],
      [addresses[1_099], 42n],
    ]);
    await devnet.transfer('USDT', addresses[7], '1.25');
    await devnet.transfer('USDT', addresses[600], '3.000001');
    await devnet.transfer('USDT', addresses[1_099], '0.000042');

    const now = await chain.tokenBalances(devnet.tokens.USDT.contract, addresses);
    expect(now.size).toBe(addresses.length);
    for (const address of addresses) {
      expect(now.get(address)).toBe(funded.get(address) ?? 0n);
    }
    const earlier = await chain.tokenBalances(devnet.tokens.USDT.contract, addresses, before);
    expect([...earlier.values()].every((balance) => balance === 0n)).toBe(true);
  });
});
