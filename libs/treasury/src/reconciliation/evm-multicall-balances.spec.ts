import { ChainError } from '@app/chains';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { EvmMulticallBalances } from './evm-multicall-balances';

// Nothing listens here: a malformed address must be refused before anything is sent.
const network = { ...TESTNET_NETWORKS.ETHEREUM, rpcUrls: ['http://127.0.0.1:9'] };
const token = TESTNET_NETWORKS.ETHEREUM.tokens.USDT!.contract;

describe('EvmMulticallBalances', () => {
  const reader = new EvmMulticallBalances(network);
  afterAll(() => reader.close());

  it.each([
    ['too short', '0x1234'],
    ['not hex', `0x${'g'.repeat(40)}`],
    ['a TRON address', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  ])('refuses an address that is %s, before any request', async (_, address) => {
    const read = reader.read([{ address, token }], 1);
    await expect(read).rejects.toThrow(ChainError);
    await expect(read).rejects.toThrow(`malformed address ${address}`);
  });

  it('refuses a malformed token contract the same way', async () => {
    const owner = `0x${'1'.repeat(40)}`;
    await expect(reader.tokenBalances('0xabc', [owner], 'latest')).rejects.toThrow(
      'malformed token 0xabc',
    );
  });
});
