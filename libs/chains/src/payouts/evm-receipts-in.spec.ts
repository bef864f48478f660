import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { NetworkConfig } from '../networks/network.types';
import { ReceiptFeeUnknown, receiptsWithoutFee } from '../adapters/evm/receipts-without-fee';
import { BlockHeader } from './evm-block-receipts';
import { EthersPayoutTransport } from './evm-payout-transport';

const hex = (byte: string) => `0x${byte.repeat(32)}`;
const [TX1, TX2] = [hex('01'), hex('02')];
const header: BlockHeader = {
  number: 16,
  hash: hex('aa'),
  parentHash: hex('bb'),
  transactionHashes: [TX1, TX2],
};

function receipt(txHash: string, fields: Record<string, unknown> = {}) {
  return {
    transactionHash: txHash,
    blockHash: header.hash,
    blockNumber: '0x10',
    status: '0x1',
    gasUsed: '0x5208',
    effectiveGasPrice: '0x3b9aca00',
    ...fields,
  };
}

type Answer = (method: string, params: unknown[]) => unknown;
/** Answered as a backend down: HTTP 503, retried on the next URL. */
const UNAVAILABLE = Symbol('503');

/** A JSON-RPC node answering from `answer`, recording the methods asked. */
async function node(answer: Answer): Promise<{ url: string; methods: string[]; server: Server }> {
  const methods: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { id, method, params } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      methods.push(method);
      const result = answer(method, params);
      if (result === UNAVAILABLE) {
        response.writeHead(503);
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, methods, server };
}

/** Single receipts as the chain has them. */
const singles: Answer = (method, params) =>
  method === 'eth_getTransactionReceipt' ? receipt(params[0] as string) : null;

/*
 * Review r8, F3: an eth_getBlockReceipts answer that is not the block's receipts whole (a count
 * that differs, a receipt of another block, an invalid entry) was a permanent error: no other RPC
 * URL was asked, and the run stalled on the block for 30 looks.
 */
describe('EthersPayoutTransport.receiptsIn when a block’s receipts are refused', () => {
  const servers: Server[] = [];
  const transports: EthersPayoutTransport[] = [];

  afterAll(async () => {
    for (const transport of transports) await transport.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  const transportOver = (...answers: Answer[]) => transportOn({}, ...answers);

  async function transportOn(fields: Partial<NetworkConfig>, ...answers: Answer[]) {
    const nodes = await Promise.all(answers.map(node));
    servers.push(...nodes.map((one) => one.server));
    const network = {
      name: 'ETHEREUM',
      ...fields,
      chainFamily: 'EVM',
      chainId: 31337,
      rpcUrls: nodes.map((one) => one.url),
      confirmations: 1,
    } as unknown as NetworkConfig;
    const transport = new EthersPayoutTransport(network, {
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 5_000 },
    });
    transports.push(transport);
    return { transport, nodes };
  }

  const refusals: Array<[string, unknown[]]> = [
    ['a count that differs', [receipt(TX1), receipt(TX2), receipt(hex('03'))]],
    ['a receipt of another block', [receipt(TX1), receipt(TX2, { blockHash: hex('cc') })]],
    ['an entry without a fee', [receipt(TX1), receipt(TX2, { gasUsed: undefined })]],
  ];

  it.each(refusals)('asks the next RPC URL after %s', async (_, refused) => {
    const { transport, nodes } = await transportOver(
      (method, params) => (method === 'eth_getBlockReceipts' ? refused : singles(method, params)),
      (method, params) =>
        method === 'eth_getBlockReceipts'
          ? [receipt(TX1), receipt(TX2, { status: '0x0' })]
          : singles(method, params),
    );
    const found = await transport.receiptsIn(header, [TX1, TX2]);
    expect(found?.get(TX2)).toMatchObject({ txHash: TX2, succeeded: false });
    expect(nodes.map((one) => one.methods)).toEqual([
      ['eth_getBlockReceipts'],
      ['eth_getBlockReceipts'],
    ]);
  });

  it.each(refusals)(
    'reads the receipts one by one, each against the block, once every URL refused %s',
    async (_, refused) => {
      const refusing: Answer = (method, params) =>
        method === 'eth_getBlockReceipts' ? refused : singles(method, params);
      const { transport, nodes } = await transportOver(refusing, refusing);
      const found = await transport.receiptsIn(header, [TX1, TX2]);
      expect([...found!.keys()]).toEqual([TX1, TX2]);
      const asked = nodes.flatMap((one) => one.methods);
      expect(asked.filter((method) => method === 'eth_getBlockReceipts')).toHaveLength(2);
      expect(asked.filter((method) => method === 'eth_getTransactionReceipt')).toHaveLength(2);
      // The next block is asked for whole again: a refusal is not "method not found".
      await transport.receiptsIn(header, [TX1, TX2]);
      expect(
        nodes.flatMap((one) => one.methods).filter((m) => m === 'eth_getBlockReceipts'),
      ).toHaveLength(4);
    },
  );

  it('reads them one by one when one URL refused and the last attempt failed otherwise (r9a, N4)', async () => {
    const { transport, nodes } = await transportOver(
      (method, params) =>
        method === 'eth_getBlockReceipts' ? refusals[0][1] : singles(method, params),
      (method, params) =>
        method === 'eth_getBlockReceipts' ? UNAVAILABLE : singles(method, params),
    );
    const found = await transport.receiptsIn(header, [TX1, TX2]);
    expect([...found!.keys()]).toEqual([TX1, TX2]);
    const asked = nodes.flatMap((one) => one.methods);
    expect(asked.filter((method) => method === 'eth_getTransactionReceipt')).toHaveLength(2);
  });

  it('counts no single receipt of another block either: the block is not read', async () => {
    const { transport } = await transportOver((method, params) =>
      method === 'eth_getBlockReceipts'
        ? [receipt(TX1)]
        : method === 'eth_getTransactionReceipt'
          ? receipt(params[0] as string, { blockHash: hex('cc') })
          : null,
    );
    await expect(transport.receiptsIn(header, [TX1, TX2])).resolves.toBeNull();
  });

  describe('on an OP-stack network, a receipt without l1Fee (review r9b follow-up, M1, M2)', () => {
    const BASE = { name: 'BASE', opStack: true } as Partial<NetworkConfig>;
    const L1_FEE = 10n ** 16n;
    const whole: Answer = (method, params) =>
      method === 'eth_getTransactionReceipt'
        ? receipt(params[0] as string, { l1Fee: `0x${L1_FEE.toString(16)}` })
        : method === 'eth_blockNumber'
          ? '0x20'
          : null;
    const stripped: Answer = (method, params) =>
      method === 'eth_getTransactionReceipt' ? receipt(params[0] as string) : whole(method, params);
    const execution = 21_000n * 1_000_000_000n;

    afterEach(() => {
      for (const txHash of [TX1, TX2]) receiptsWithoutFee.answered('BASE', txHash);
    });

    it('is asked of the next RPC URL, alone or in a block (before: a permanent error, none asked)', async () => {
      const { transport, nodes } = await transportOn(BASE, stripped, whole);
      const lookup = await transport.lookup(TX1);
      expect(lookup).toMatchObject({ state: 'mined', feeBaseUnits: execution + L1_FEE });
      expect(nodes[0]!.methods).toContain('eth_getTransactionReceipt');
      // The URL that answered whole is asked first from now on.
      const found = await transport.receiptsIn(header, [TX2]);
      expect(found?.get(TX2)?.feeBaseUnits).toBe(execution + L1_FEE);
      expect(receiptsWithoutFee.counts().get('BASE')).toBeUndefined();
    });

    it('leaves only that receipt out of the block once no URL answers its fee, and counts it', async () => {
      const oneStripped: Answer = (method, params) =>
        method === 'eth_getBlockReceipts'
          ? [receipt(TX1), whole('eth_getTransactionReceipt', [TX2])]
          : params[0] === TX1
            ? stripped(method, params)
            : whole(method, params);
      const { transport } = await transportOn(BASE, oneStripped, oneStripped);
      // Before, the ChainError was thrown and the block was not read (30 looks of a stalled run).
      const found = await transport.receiptsIn(header, [TX1, TX2]);
      expect([...found!.keys()]).toEqual([TX2]);
      expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
      // Looked up alone, it is refused as well: nothing decided on it.
      await expect(transport.lookup(TX1)).rejects.toBeInstanceOf(ReceiptFeeUnknown);
      expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
    });

    /*
     * Review r9b follow-up 2, M-1: the last attempt's answer won. A receipt without l1Fee (proof
     * the transaction is mined) from the first URL, then a 503 or a null from the second: the
     * lookup read as unknown or threw the 503, the block was not read, and nothing was counted.
     */
    const down: Answer = () => UNAVAILABLE;
    const lagging: Answer = (method) => (method === 'eth_blockNumber' ? '0x20' : null);

    it.each([
      ['down (503)', down],
      ['lagging (null)', lagging],
    ])('stays a receipt without its fee when the other URL is %s', async (_, other) => {
      const { transport } = await transportOn(BASE, stripped, other);
      await expect(transport.lookup(TX1)).rejects.toBeInstanceOf(ReceiptFeeUnknown);
      expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
      const again = await transportOn(BASE, stripped, other);
      // Only that receipt is left out; the block is read (not null, not an error).
      await expect(again.transport.receiptsIn(header, [TX1])).resolves.toEqual(new Map());
      expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
    });

    /*
     * M-2, L1: each receipt without its fee cost every attempt with backoff, and the attempts
     * never reached a good URL past them. Now each URL is asked once, in order, no backoff: a
     * backoff draws Math.random (backoffDelay), so no draw is no sleep.
     */
    it('asks each URL once, with no backoff, until one answers it whole', async () => {
      const draws = jest.spyOn(Math, 'random');
      try {
        const { transport, nodes } = await transportOn(
          BASE,
          stripped,
          stripped,
          stripped,
          stripped,
          whole,
        );
        const lookup = await transport.lookup(TX1);
        expect(lookup).toMatchObject({ state: 'mined', feeBaseUnits: execution + L1_FEE });
        const receipts = (one: { methods: string[] }) =>
          one.methods.filter((method) => method === 'eth_getTransactionReceipt').length;
        expect(nodes.map(receipts)).toEqual([1, 1, 1, 1, 1]);
        const again = await transportOn(BASE, stripped, stripped, stripped, stripped, whole);
        const found = await again.transport.receiptsIn(header, [TX1]);
        expect(found?.get(TX1)?.feeBaseUnits).toBe(execution + L1_FEE);
        expect(again.nodes.map(receipts)).toEqual([1, 1, 1, 1, 1]);
        expect(draws).not.toHaveBeenCalled();
        // Another error is retried as before, with its backoff.
        const other = await transportOn(BASE, down, whole);
        await expect(other.transport.lookup(TX1)).resolves.toMatchObject({ state: 'mined' });
        expect(draws).toHaveBeenCalledTimes(1);
      } finally {
        draws.mockRestore();
      }
    });

    /*
     * Review r9b follow-up 3, M-1: one URL behind a load balancer had one attempt at a receipt
     * without its fee (the 4 of the retries before): another backend answers it whole.
     */
    it('asks a single URL again, with no backoff, until it answers the receipt whole', async () => {
      const draws = jest.spyOn(Math, 'random');
      try {
        let asked = 0;
        // Backends in turn behind one URL: the first strips l1Fee, the next does not.
        const balanced: Answer = (method, params) =>
          method === 'eth_getTransactionReceipt' && asked++ % 2 === 0
            ? stripped(method, params)
            : whole(method, params);
        const { transport } = await transportOn(BASE, balanced);
        const lookup = await transport.lookup(TX1);
        expect(lookup).toMatchObject({ state: 'mined', feeBaseUnits: execution + L1_FEE });
        const found = await transport.receiptsIn(header, [TX2]);
        expect(found?.get(TX2)?.feeBaseUnits).toBe(execution + L1_FEE);
        expect(asked).toBe(4);
        expect(draws).not.toHaveBeenCalled();
      } finally {
        draws.mockRestore();
      }
    });

    /*
     * L-4: the first whole receipt won, though of another branch than the header's: the block
     * was not read, while a later URL had the canonical receipt.
     */
    it('takes no whole receipt of another branch: the next URL’s canonical one', async () => {
      const otherBranch: Answer = (method, params) =>
        method === 'eth_getTransactionReceipt'
          ? receipt(params[0] as string, {
              blockHash: hex('cc'),
              l1Fee: `0x${L1_FEE.toString(16)}`,
            })
          : whole(method, params);
      const { transport } = await transportOn(BASE, stripped, otherBranch, whole);
      const found = await transport.receiptsIn(header, [TX1]);
      expect(found?.get(TX1)?.feeBaseUnits).toBe(execution + L1_FEE);
    });

    it('counts an operator fee as no fee known (review r9b, L2)', async () => {
      const operator: Answer = (method, params) =>
        method === 'eth_getTransactionReceipt'
          ? receipt(params[0] as string, { l1Fee: '0x1', operatorFeeScalar: '0x1' })
          : whole(method, params);
      const { transport } = await transportOn(BASE, operator);
      await expect(transport.lookup(TX1)).rejects.toThrow(/operator fee/);
    });
  });
});
