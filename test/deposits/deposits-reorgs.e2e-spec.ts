import { DepositWatcherService } from '@app/deposits';
import { watchedDepth } from '@app/deposits/scan-plan';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, startDevnet } from '../support/devnet';
import { JsonRpcRequest, RpcProxy, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { createSession, readSession } from '../support/sessions-api';

const CONFIRMATIONS = 2;
const LAG_BLOCKS = 20;
// Blocks the watcher re-checks below the head (confirmations plus the reorg safety margin).
const REORG_WINDOW = watchedDepth(CONFIRMATIONS);

/**
 * Reorgs and misbehaving RPC providers, as real chains and hosted RPCs produce them: the watcher
 * must find every payment that ends up on the chain, and undo only what the chain really undid.
 */
describe('Deposit watcher under reorgs and lagging RPC providers (anvil)', () => {
  let devnet: Devnet;
  let primary: RpcProxy;
  let lagging: RpcProxy;
  let api: TestApi;
  let watcher: DepositWatcherService;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    devnet = await startDevnet();
    primary = await RpcProxy.start(devnet.rpcUrl);
    lagging = await RpcProxy.start(devnet.rpcUrl);
    environment = useChainEnvironment(
      devnet.networksFileJson({
        rpcUrls: [primary.url, lagging.url],
        confirmations: CONFIRMATIONS,
      }),
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    await forgetChain(api.app, 'ETHEREUM');
  });

  afterEach(async () => {
    primary.intercept(undefined);
    lagging.intercept(undefined);
    primary.rewrite(undefined);
    lagging.rewrite(undefined);
    await primary.up();
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await api?.close();
    await primary?.stop();
    await lagging?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  const scan = () => watcher.scan('ETHEREUM');
  const balance = async (merchant: TestMerchant) => {
    const { body } = await api.get('/v1/balances', merchant).expect(200);
    const entry = body.find(
      (item: { network: string; currency: string }) =>
        item.network === 'ETHEREUM' && item.currency === 'USDT',
    );
    return entry?.available ?? '0';
  };
  const ledgerKinds = async (sessionId: string) =>
    (
      await api.dataSource.query(
        `SELECT kind FROM ledger_entries WHERE reference LIKE $1 ORDER BY id`,
        [`checkout_session:${sessionId}:%`],
      )
    ).map((entry: { kind: string }) => entry.kind);
  const transferRows = async (txHash: string) =>
    api.dataSource.query(
      `SELECT status, block_number::int AS block FROM session_transactions WHERE tx_hash = $1`,
      [txHash],
    );
  /** The signed transaction, to mine it again on the other side of a reorg. */
  const rawTransaction = async (txHash: string) =>
    (await devnet.provider.send('eth_getRawTransactionByHash', [txHash])) as string;
  const rebroadcast = async (raw: string) => {
    await devnet.provider.send('eth_sendRawTransaction', [raw]);
  };

  it('finds a payment the reorg moved to a lower height', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const fork = await devnet.snapshot();
    const forkHeight = await devnet.head();
    await devnet.mine(3);
    const sent = await devnet.transfer('USDT', session.pay_address, '10');
    expect(sent.blockNumber).toBe(forkHeight + 4);
    const raw = await rawTransaction(sent.txHash);
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    expect((await readSession(api, merchant, session.id)).status).toBe('Paid');

    // The replacement chain mines the same transaction first, then grows past the old head.
    await devnet.revert(fork);
    await rebroadcast(raw);
    await devnet.mine(6);
    await scan();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: forkHeight + 1 },
    ]);
    expect(await balance(merchant)).toBe('9.9');
  });

  it('finds a new payment in a replacement block at a height already scanned', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '7' });
    const fork = await devnet.snapshot();
    await devnet.mine(3);
    await scan();

    await devnet.revert(fork);
    const sent = await devnet.transfer('USDT', session.pay_address, '7');
    await devnet.mine(4);
    await scan();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '7',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: sent.blockNumber },
    ]);
  });

  it('undoes a reorg deeper than the confirmations, then counts the payment once when re-mined', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const fork = await devnet.snapshot();
    const sent = await devnet.transfer('USDT', session.pay_address, '10');
    const raw = await rawTransaction(sent.txHash);
    await devnet.mine(CONFIRMATIONS + 3);
    await scan();
    expect((await readSession(api, merchant, session.id)).status).toBe('Paid');
    expect(await balance(merchant)).toBe('9.9');

    await devnet.revert(fork);
    await devnet.mine(CONFIRMATIONS + 6);
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });
    expect(await balance(merchant)).toBe('0');

    await rebroadcast(raw);
    await devnet.mine(CONFIRMATIONS);
    await scan();
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await balance(merchant)).toBe('9.9');
    expect(await transferRows(sent.txHash)).toHaveLength(1);
    expect(await ledgerKinds(session.id)).toEqual(['deposit', 'deposit_reversal', 'deposit']);
  });

  it('finds a pending payment re-mined by a reorg while the watcher was stopped for longer than its window', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const fork = await devnet.snapshot();
    const sent = await devnet.transfer('USDT', session.pay_address, '10');
    const raw = await rawTransaction(sent.txHash);
    await scan();
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Pending', block: sent.blockNumber },
    ]);

    // While the watcher is stopped the block is replaced, the payment is mined again one block
    // higher (the same transaction and log index), and the chain grows past the reorg window.
    await devnet.revert(fork);
    await devnet.mine(1);
    await rebroadcast(raw);
    await devnet.mine(REORG_WINDOW + CONFIRMATIONS);
    await scan();
    await scan();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '10',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: sent.blockNumber + 1 },
    ]);
    expect(await balance(merchant)).toBe('9.9');
  });

  it('undoes a confirmed payment a reorg dropped while the watcher was stopped for longer than its window', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const fork = await devnet.snapshot();
    const sent = await devnet.transfer('USDT', session.pay_address, '10');
    await devnet.mine(CONFIRMATIONS + 3);
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({ status: 'Paid' });
    expect(await balance(merchant)).toBe('9.9');

    // While the watcher is stopped, a replacement chain without the payment grows far past the
    // window above the watcher's cursor (the head alone would put the payment out of reach).
    await devnet.revert(fork);
    await devnet.mine(REORG_WINDOW + 20);
    await scan();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Pending',
      amount_received: '0',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Reverted', block: sent.blockNumber },
    ]);
    expect(await balance(merchant)).toBe('0');
    expect(await ledgerKinds(session.id)).toEqual(['deposit', 'deposit_reversal']);
  });

  it('reverts nothing when the failover RPC is 20 blocks behind', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '5' });
    await devnet.mine(1);
    // The second provider stops following the chain here.
    const frozenAt = await devnet.head();
    lagging.intercept(behindAt(frozenAt));
    const sent = await devnet.transfer('USDT', session.pay_address, '5');
    await devnet.mine(LAG_BLOCKS - 1);
    await scan();
    expect((await readSession(api, merchant, session.id)).status).toBe('Paid');
    expect(sent.blockNumber).toBeGreaterThan(frozenAt);

    // The primary goes away; only the lagging provider answers.
    await primary.down();
    await scan().catch(() => undefined);
    await scan().catch(() => undefined);

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '5',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: sent.blockNumber },
    ]);
    expect(await balance(merchant)).toBe('4.95');
    expect(await ledgerKinds(session.id)).toEqual(['deposit']);
  });

  it('asks the first RPC URL again when the backup that answered during its outage is behind', async () => {
    const merchant = await api.createMerchant();
    // Whichever URL an earlier test left preferred, the first one answers from here on.
    await lagging.down();
    await scan();
    await lagging.up();
    await devnet.mine(1);
    lagging.intercept(behindAt(await devnet.head()));
    await devnet.mine(3);
    await scan();

    // The first URL goes away: the backup answers, with a head below what was scanned.
    await primary.down();
    await expect(scan()).rejects.toThrow(/behind block/);
    await primary.up();

    const session = await createSession(api, merchant, { pricing_amount: '6' });
    await devnet.transfer('USDT', session.pay_address, '6');
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '6',
    });
  });

  it('asks another RPC URL when the one answering is stuck at one block for longer than a minute', async () => {
    const merchant = await api.createMerchant();
    await scan();
    // The first URL goes away for a moment; the backup answers, then stops following the chain.
    await primary.down();
    await scan();
    lagging.intercept(behindAt(await devnet.head()));
    await primary.up();

    const session = await createSession(api, merchant, { pricing_amount: '2' });
    await devnet.transfer('USDT', session.pay_address, '2');
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    // The stuck URL looks like a quiet chain: nothing is detected...
    expect((await readSession(api, merchant, session.id)).status).toBe('Pending');

    // ...until its head has not moved for longer than the network's bound (a minute here).
    const startedAt = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => startedAt + 61_000);
    await scan();
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '2',
    });
  });

  it('records a payment once when the provider lists its log twice', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '4' });
    const sent = await devnet.transfer('USDT', session.pay_address, '4');
    // Every eth_getLogs answer carries each log twice (both URLs: either may be asked).
    const twice = (request: JsonRpcRequest, answer: string) => {
      if (request.method !== 'eth_getLogs') return undefined;
      const parsed = JSON.parse(answer) as { result?: unknown[] };
      if (!Array.isArray(parsed.result)) return undefined;
      return JSON.stringify({ ...parsed, result: [...parsed.result, ...parsed.result] });
    };
    primary.rewrite(twice);
    lagging.rewrite(twice);
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();

    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '4',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: sent.blockNumber },
    ]);
    expect(await balance(merchant)).toBe('3.96');
  });

  it('remembers no block hash from another fork when one backend answers for a block', async () => {
    await scan();
    const first = (await devnet.head()) + 1;
    await devnet.mine(3);
    // One eth_getBlockByNumber answer for the middle block comes from a backend on another fork.
    const otherFork = `0x${'ab'.repeat(32)}`;
    const forked = (request: JsonRpcRequest, answer: string) => {
      const [tag] = (request.params ?? []) as [string];
      if (request.method !== 'eth_getBlockByNumber' || Number(tag) !== first + 1) return undefined;
      const parsed = JSON.parse(answer) as { result: { hash: string } | null };
      if (!parsed.result) return undefined;
      return JSON.stringify({ ...parsed, result: { ...parsed.result, hash: otherFork } });
    };
    primary.rewrite(forked);
    lagging.rewrite(forked);
    await expect(scan()).rejects.toThrow(`block ${first + 2} does not follow block ${first + 1}`);

    primary.rewrite(undefined);
    lagging.rewrite(undefined);
    await scan();
    const remembered: Array<{ block: number; hash: string }> = await api.dataSource.query(
      `SELECT block_number::int AS block, block_hash AS hash FROM chain_blocks
        WHERE network = 'ETHEREUM' AND block_number BETWEEN $1 AND $2 ORDER BY block_number`,
      [first, first + 2],
    );
    const chain = await Promise.all(
      [first, first + 1, first + 2].map(async (block) => ({
        block,
        hash: (await devnet.provider.getBlock(block))?.hash?.toLowerCase(),
      })),
    );
    expect(remembered).toEqual(chain);
  });

  it('finds a payment a load-balanced RPC left out of one eth_getLogs answer', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '3' });
    const sent = await devnet.transfer('USDT', session.pay_address, '3');
    // One backend behind the load balancer has not seen the block yet: its answer is empty.
    // (Both URLs: the watcher sticks to whichever answered last.)
    let shortAnswers = 0;
    const shortOnce = (request: JsonRpcRequest) => {
      if (request.method !== 'eth_getLogs' || shortAnswers > 0) return undefined;
      shortAnswers += 1;
      return rpcResultReply(request, []);
    };
    primary.intercept(shortOnce);
    lagging.intercept(shortOnce);
    // The block's header says it may hold a transfer of the token and the answer lists none at
    // or above it: not read yet, the cursor stays below it ("not yet", no failure).
    await expect(scan()).rejects.toThrow(/the logs answered did not reach block/);
    expect(shortAnswers).toBe(1);
    expect((await readSession(api, merchant, session.id)).transactions).toEqual([]);

    primary.intercept(undefined);
    lagging.intercept(undefined);
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    await scan();
    expect(await readSession(api, merchant, session.id)).toMatchObject({
      status: 'Paid',
      amount_received: '3',
    });
    expect(await transferRows(sent.txHash)).toEqual([
      { status: 'Confirmed', block: sent.blockNumber },
    ]);
  });
});

/** A node that stopped at `height`: its head stays there and later blocks do not exist for it. */
function behindAt(height: number) {
  return (request: JsonRpcRequest) => {
    if (request.method === 'eth_blockNumber') {
      return rpcResultReply(request, `0x${height.toString(16)}`);
    }
    if (request.method === 'eth_getBlockByNumber') {
      const [tag] = request.params as [string];
      if (tag === 'latest' || Number(tag) > height) return rpcResultReply(request, null);
    }
    return undefined;
  };
}
