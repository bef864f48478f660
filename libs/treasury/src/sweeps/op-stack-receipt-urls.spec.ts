import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { NetworkConfig, receiptsWithoutFee } from '@app/chains';
import { EvmFundingReader } from '../books/evm-funding-reader';
import { FinalReceipts } from '../fees/final-receipts';
import { EvmSweepChain } from './evm-sweep-chain';

const hex = (byte: string) => `0x${byte.repeat(32)}`;
const TX = hex('01');
const BLOCK = hex('aa');
const L1_FEE = 10n ** 16n;
const EXECUTION = 21_000n * 1_000_000_000n;

/**
 * A node of an OP-stack chain holding TX in block 16; `l1Fee` false: its receipts lack it;
 * 'down' answers HTTP 503, 'lagging' has nothing (null) but its head, 'pending' a receipt of no
 * block yet, without l1Fee.
 */
type Node = boolean | 'down' | 'lagging' | 'pending';
async function node(l1Fee: Node): Promise<{ url: string; server: Server; asked: string[] }> {
  const asked: string[] = [];
  const answer = (method: string): unknown => {
    asked.push(method);
    if (l1Fee === 'lagging') return method === 'eth_blockNumber' ? '0x20' : null;
    switch (method) {
      case 'eth_getTransactionReceipt':
        return {
          transactionHash: TX,
          blockHash: BLOCK,
          blockNumber: '0x10',
          status: '0x1',
          type: '0x2',
          from: `0x${'11'.repeat(20)}`,
          gasUsed: '0x5208',
          effectiveGasPrice: '0x3b9aca00',
          logs: [],
          ...(l1Fee === true ? { l1Fee: `0x${L1_FEE.toString(16)}` } : {}),
          ...(l1Fee === 'pending' ? { blockHash: null, blockNumber: null } : {}),
        };
      case 'eth_getTransactionByHash':
        return { from: `0x${'11'.repeat(20)}`, to: null, value: '0x0', blockNumber: '0x10' };
      case 'eth_blockNumber':
        return '0x20';
      case 'eth_getBlockByNumber':
        return { hash: BLOCK, number: '0x10', parentHash: hex('bb') };
      default:
        return null;
    }
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { id, method } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (l1Fee === 'down') {
        asked.push(method);
        response.writeHead(503);
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: answer(method) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, asked };
}

/*
 * Review r9b follow-up, M1: a receipt answered without l1Fee told no fee, and the sweeps' and the
 * funding's readers read it again later from the same URL (the one that answered last): another
 * RPC URL, whose node answers it whole, was never asked.
 */
describe('Receipts of an OP-stack network read by sweeps and funding, one URL stripping l1Fee', () => {
  const servers: Server[] = [];
  const closers: Array<() => unknown> = [];

  afterAll(async () => {
    for (const close of closers) await close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  let asked: string[][] = [];

  async function network(...whole: Node[]): Promise<NetworkConfig> {
    const nodes = await Promise.all(whole.map(node));
    servers.push(...nodes.map((one) => one.server));
    asked = nodes.map((one) => one.asked);
    return {
      name: 'BASE',
      chainFamily: 'EVM',
      chainId: 8453,
      rpcUrls: nodes.map((one) => one.url),
      confirmations: 1,
      opStack: true,
      tokens: {},
    } as unknown as NetworkConfig;
  }

  afterEach(() => receiptsWithoutFee.answered('BASE', TX));

  it('a sweep receipt is asked of the next URL, and its fee includes l1Fee', async () => {
    const chain = new EvmSweepChain(await network(false, true));
    closers.push(() => chain.close());
    expect((await chain.receipt(TX))?.feeWei).toBe(EXECUTION + L1_FEE);
  });

  it('a funding transaction is asked of the next URL, and its fee includes l1Fee', async () => {
    const reader = new EvmFundingReader(await network(false, true));
    closers.push(() => reader.close());
    expect(await reader.read(TX)).toMatchObject({
      state: 'mined',
      feeBaseUnits: EXECUTION + L1_FEE,
    });
  });

  it('without a fee from any URL: no fee, as before, and the receipt counted', async () => {
    const chain = new EvmSweepChain(await network(false, false));
    closers.push(() => chain.close());
    expect((await chain.receipt(TX))?.feeWei).toBeNull();
    const reader = new EvmFundingReader(await network(false));
    closers.push(() => reader.close());
    expect(await reader.read(TX)).toEqual({ state: 'pending' });
    expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
  });

  /*
   * Review r9b follow-up 2, M-1: the last attempt's answer won: the other URL down made the read
   * an error, lagging made it an absence (no receipt, a transaction unknown), though the first
   * URL's receipt proved the transaction mined.
   */
  it.each([['down' as const], ['lagging' as const]])(
    'without a fee from the first URL and the second %s: no fee, never an absence',
    async (other) => {
      const chain = new EvmSweepChain(await network(false, other));
      closers.push(() => chain.close());
      expect(await chain.receipt(TX)).toMatchObject({ blockNumber: 16, feeWei: null });
      const reader = new EvmFundingReader(await network(false, other));
      closers.push(() => reader.close());
      expect(await reader.read(TX)).toEqual({ state: 'pending' });
      const fees = new FinalReceipts(await network(false, other));
      closers.push(() => fees.close());
      const read = await fees.read(TX, 64, 0x20, fees.batchHeaders());
      expect(read).toEqual({ state: 'shallow', blockNumber: 16, confirmations: 17 });
      expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
    },
  );

  /*
   * M-2, L1: the attempts (4 with backoff; fee finality's 2) never reached a good URL past them.
   * Each URL is now asked once, in order.
   */
  it('asks each URL once, in order, until one answers the receipt whole', async () => {
    const receipts = () =>
      asked.map((methods) => methods.filter((m) => m === 'eth_getTransactionReceipt').length);
    const chain = new EvmSweepChain(await network(false, false, false, false, true));
    closers.push(() => chain.close());
    expect((await chain.receipt(TX))?.feeWei).toBe(EXECUTION + L1_FEE);
    expect(receipts()).toEqual([1, 1, 1, 1, 1]);
    const fees = new FinalReceipts(await network(false, false, true));
    closers.push(() => fees.close());
    const read = await fees.read(TX, 1, 0x20, fees.batchHeaders());
    expect(read).toMatchObject({ state: 'final', feeWei: EXECUTION + L1_FEE });
    expect(receipts()).toEqual([1, 1, 1]);
  });

  /*
   * Review r9b follow-up 3, L-1: a pending receipt (no block) without l1Fee was remembered as a
   * receipt without its fee: fee finality read its block as BigInt(null) (a TypeError), and
   * funding counted it among the receipts without a fee.
   */
  it('a pending receipt without l1Fee is no receipt yet, never one without its fee', async () => {
    const fees = new FinalReceipts(await network('pending'));
    closers.push(() => fees.close());
    await expect(fees.read(TX, 1, 0x20, fees.batchHeaders())).resolves.toEqual({
      state: 'missing',
    });
    const reader = new EvmFundingReader(await network('pending'));
    closers.push(() => reader.close());
    expect(await reader.read(TX)).toEqual({ state: 'pending' });
    expect(receiptsWithoutFee.counts().get('BASE')).toBeUndefined();
  });
});
