import { Transaction, Wallet } from 'ethers';
import { NetworkConfig } from '../networks/network.types';
import { EthersPayoutTransport } from './evm-payout-transport';
import { HotWalletKey } from './hot-wallet-key';

const network = {
  name: 'ETHEREUM',
  chainFamily: 'EVM',
  chainId: 31337,
  rpcUrls: ['http://127.0.0.1:9'],
  confirmations: 1,
} as unknown as NetworkConfig;

describe('EthersPayoutTransport signing', () => {
  const wallet = Wallet.createRandom();
  const key = new HotWalletKey('ETHEREUM', wallet.address, wallet.privateKey);
  const transport = new EthersPayoutTransport(network);
  const fees = { maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

  afterAll(() => transport.close());

  it("names each transaction by the hash of its bytes, signed by the hot wallet's key", () => {
    const transfer = transport.sign(
      key,
      {
        tokenContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        to: Wallet.createRandom().address,
        amountBaseUnits: 9_500_000n,
      },
      { nonce: 7, fees, gasLimit: 80_000n },
    );
    const cancel = transport.signCancel(key, { nonce: 7, fees });
    for (const signed of [transfer, cancel]) {
      const decoded = Transaction.from(signed.rawTransaction);
      expect(signed.txHash).toBe(decoded.hash!.toLowerCase());
      expect(decoded.from).toBe(wallet.address);
      expect(decoded.nonce).toBe(7);
      expect(decoded.chainId).toBe(31337n);
    }
  });

  it('refuses to broadcast bytes that are no signed transaction, before any call', async () => {
    const signed = Transaction.from(transport.signCancel(key, { nonce: 1, fees }).rawTransaction);
    const unsigned = Transaction.from({ ...signed.toJSON(), signature: null }).unsignedSerialized;
    for (const bytes of ['0x1234zz', '0x', '0xdeadbeef', unsigned, `${signed.serialized}00`]) {
      await expect(transport.broadcast(bytes)).rejects.toMatchObject({
        kind: 'permanent',
        message: expect.stringContaining('not a signed transaction'),
      });
    }
  });
});
