import { id, Wallet } from 'ethers';
import { Devnet, startDevnet } from '../support/devnet';
import { LaggingBalancer } from '../support/lagging-balancer';

const LAG = 6;

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** The test support every "load-balanced RPC" test stands on: each rule it promises, on anvil. */
describe('LaggingBalancer (anvil)', () => {
  let devnet: Devnet;
  let balancer: LaggingBalancer;

  beforeAll(async () => {
    devnet = await startDevnet();
    // Enough history below the head for the lagging backend to have blocks at all.
    await devnet.mine(LAG + 4);
    balancer = await LaggingBalancer.start(devnet.rpcUrl, { lagBlocks: LAG, mode: 'fresh' });
  });

  afterAll(async () => {
    await balancer?.stop();
    await devnet?.stop();
  });

  const call = async (method: string, params: unknown[] = []): Promise<RpcAnswer> => {
    const response = await fetch(balancer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    return (await response.json()) as RpcAnswer;
  };
  const result = async (method: string, params: unknown[] = []) =>
    (await call(method, params)).result;
  const on = async <T>(mode: 'fresh' | 'lagging', read: () => Promise<T>): Promise<T> => {
    balancer.mode = mode;
    return read();
  };
  const hex = (value: number) => `0x${value.toString(16)}`;

  it('answers the head, or the head minus the lag', async () => {
    const head = await devnet.head();
    expect(Number(await on('fresh', () => result('eth_blockNumber')))).toBe(head);
    expect(Number(await on('lagging', () => result('eth_blockNumber')))).toBe(head - LAG);
  });

  it('answers blocks above the lagging head as null, and tags at the lagging head', async () => {
    const head = await devnet.head();
    const top = (await on('fresh', () => result('eth_getBlockByNumber', [hex(head), false]))) as {
      hash: string;
    };
    expect(top).not.toBeNull();
    await on('lagging', async () => {
      expect(await result('eth_getBlockByNumber', [hex(head), false])).toBeNull();
      expect(await result('eth_getBlockByNumber', [hex(head - LAG), false])).not.toBeNull();
      const latest = (await result('eth_getBlockByNumber', ['latest', false])) as {
        number: string;
      };
      expect(Number(latest.number)).toBe(head - LAG);
      expect(await result('eth_getBlockByHash', [top.hash, false])).toBeNull();
      expect(await result('eth_getBlockReceipts', [hex(head)])).toBeNull();
      expect(await result('eth_getBlockReceipts', [hex(head - LAG)])).toEqual(expect.any(Array));
      expect(await result('eth_getBlockReceipts', ['latest'])).toEqual(
        await result('eth_getBlockReceipts', [hex(head - LAG)]),
      );
    });
  });

  it('does not have the receipt or the transaction of a recent transfer', async () => {
    const { txHash } = await devnet.transfer('USDT', devnet.accounts.hotWallet.address, '1');
    const receipt = await on('fresh', () => result('eth_getTransactionReceipt', [txHash]));
    expect(receipt).not.toBeNull();
    await on('lagging', async () => {
      expect(await result('eth_getTransactionReceipt', [txHash])).toBeNull();
      expect(await result('eth_getTransactionByHash', [txHash])).toBeNull();
    });
    await devnet.mine(LAG);
    expect(await on('lagging', () => result('eth_getTransactionReceipt', [txHash]))).toEqual(
      receipt,
    );
  });

  it('counts transactions, and reads state, at the lagging head', async () => {
    const payer = devnet.accounts.payer.address;
    await devnet.transfer('USDT', devnet.accounts.hotWallet.address, '1');
    const head = await devnet.head();
    const fresh = Number(
      await on('fresh', () => result('eth_getTransactionCount', [payer, 'latest'])),
    );
    await on('lagging', async () => {
      const behind = Number(await result('eth_getTransactionCount', [payer, 'pending']));
      expect(behind).toBeLessThan(fresh);
      expect(Number(await result('eth_getTransactionCount', [payer]))).toBe(behind);
      expect((await call('eth_getTransactionCount', [payer, hex(head)])).error).toEqual({
        code: -32000,
        message: 'header not found',
      });
    });
  });

  it('cuts eth_getLogs at the lagging head, without an error', async () => {
    const { blockNumber } = await devnet.transfer('USDC', devnet.accounts.hotWallet.address, '1');
    const filter = {
      address: devnet.tokens.USDC.contract,
      topics: [id('Transfer(address,address,uint256)')],
      fromBlock: hex(blockNumber - LAG),
      toBlock: hex(blockNumber),
    };
    const logsOf = (answer: unknown) =>
      (answer as Array<{ blockNumber: string }>).map((log) => Number(log.blockNumber));
    expect(logsOf(await on('fresh', () => result('eth_getLogs', [filter])))).toContain(blockNumber);
    const block = (await result('eth_getBlockByNumber', [hex(blockNumber), false])) as {
      hash: string;
    };
    await on('lagging', async () => {
      const cut = logsOf(await result('eth_getLogs', [filter]));
      expect(cut).not.toContain(blockNumber);
      expect(await result('eth_getLogs', [{ ...filter, fromBlock: hex(blockNumber) }])).toEqual([]);
      expect(await result('eth_getLogs', [{ blockHash: block.hash }])).toEqual([]);
    });
  });

  it('leaves a pool-only transaction out, and still propagates a sent one', async () => {
    const wallet = new Wallet(devnet.accounts.hotWallet.privateKey, devnet.provider);
    await devnet.provider.send('evm_setAutomine', [false]);
    try {
      const signed = await wallet.signTransaction(
        await wallet.populateTransaction({ to: devnet.accounts.payer.address, value: 1n }),
      );
      const sent = await on('lagging', () => call('eth_sendRawTransaction', [signed]));
      const hash = sent.result as string;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await on('fresh', () => result('eth_getTransactionByHash', [hash]))).not.toBeNull();
      expect(await on('lagging', () => result('eth_getTransactionByHash', [hash]))).toBeNull();
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
      await devnet.mine(1);
    }
  });

  it('alternates strictly, and picks at random reproducibly', async () => {
    const heads = async () => {
      const answers: number[] = [];
      for (let index = 0; index < 6; index += 1)
        answers.push(Number(await result('eth_blockNumber')));
      return answers;
    };
    const head = await devnet.head();
    const before = { ...balancer.answered };
    balancer.mode = 'alternate';
    const alternated = await heads();
    expect(new Set(alternated.filter((_, index) => index % 2 === 0)).size).toBe(1);
    expect(new Set(alternated.filter((_, index) => index % 2 === 1)).size).toBe(1);
    expect(alternated.slice(0, 2).sort()).toEqual([head - LAG, head].sort());
    expect(balancer.answered.fresh - before.fresh).toBe(3);
    expect(balancer.answered.lagging - before.lagging).toBe(3);

    const seeded = async (seed: number) => {
      const other = await LaggingBalancer.start(devnet.rpcUrl, { lagBlocks: LAG, seed });
      try {
        for (let index = 0; index < 20; index += 1) {
          await fetch(other.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'eth_chainId' }),
          });
        }
        return { ...other.answered };
      } finally {
        await other.stop();
      }
    };
    const first = await seeded(42);
    expect(first.fresh).toBeGreaterThan(0);
    expect(first.lagging).toBeGreaterThan(0);
    expect(await seeded(42)).toEqual(first);
  });
});
