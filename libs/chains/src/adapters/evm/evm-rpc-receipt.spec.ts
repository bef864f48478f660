import { JsonRpcProvider } from 'ethers';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError } from '../../rpc/chain-error';
import { EvmRpc, noReceipt } from './evm-rpc';
import { ReceiptFeeUnknown } from './receipts-without-fee';

const TX = `0x${'01'.repeat(32)}`;
// Never contacted: the operations below answer in their place.
const [SLOW, PERMANENT] = ['http://127.0.0.1:9/slow', 'http://127.0.0.1:9/permanent'];

/*
 * Review r9b follow-up 3, L-3: an attempt `call` gave up on (timed out) that answered late
 * without the fee was remembered, and the next attempt's permanent error was swallowed into the
 * asking of the other URLs, which then threw the receipt without its fee.
 */
describe('EvmRpc.callReceipt, an abandoned attempt answering late without the fee', () => {
  it('does not swallow the permanent error the call ended on', async () => {
    const network = {
      name: 'BASE',
      chainFamily: 'EVM',
      chainId: 8453,
      rpcUrls: [SLOW, PERMANENT],
    } as unknown as NetworkConfig;
    const rpc = new EvmRpc(network, { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 500 });
    let lateAnswered: () => void = () => undefined;
    const late = new Promise<void>((resolve) => (lateAnswered = resolve));
    const operation = async (provider: JsonRpcProvider): Promise<unknown> => {
      if (provider._getConnection().url === SLOW) {
        // Past the attempt's timeout: call has moved on to the other URL by then.
        await new Promise((resolve) => setTimeout(resolve, 700));
        setImmediate(lateAnswered);
        throw new ReceiptFeeUnknown(TX, 'BASE', 'no l1Fee', null);
      }
      await late;
      throw new ChainError('permanent', 'invalid response', 'BASE');
    };
    try {
      const read = rpc.callReceipt('eth_getTransactionReceipt', noReceipt, operation);
      await expect(read).rejects.toThrow('invalid response');
      await expect(read).rejects.not.toBeInstanceOf(ReceiptFeeUnknown);
    } finally {
      rpc.close();
    }
  });
});
