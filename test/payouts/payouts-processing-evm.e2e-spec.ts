import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { parseUnits, Transaction, Wallet } from 'ethers';
import Redis from 'ioredis';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { PayoutsScheduler } from '../../apps/worker/src/payouts/payouts.scheduler';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { formatAmount, PAYOUT_JOBS, QUEUES } from '@app/common';
import { PayoutReviews } from '@app/payouts';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { creditBalance } from '../support/ledger-credit';
import { setTokenBalance, transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy, rpcErrorReply, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_REDIS_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const DECIMALS = 6;
const units = (amount: string) => parseUnits(amount, DECIMALS);

/*
 * Payouts sent by a running worker (Bull on real Redis) from the devnet's hot wallet on a real
 * anvil chain with the real ERC-20, funded by real deposits. The RPC goes through a proxy so a
 * test can take it down.
 */
describe('Payouts sent on a real chain', () => {
  let hotWalletStart: bigint;
  let chainStart: string;
  const chain = useChainSuite({
    proxy: true,
    environment: async ({ devnet }) => {
      hotWalletStart = await devnet.balanceOf('USDT', HOT_WALLET);
      chainStart = await devnet.snapshot();
      return {
        WATCH_NETWORKS: 'ETHEREUM',
        DEPOSIT_SCAN_INTERVAL_MS: '200',
        HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        PAYOUT_REPLACE_AFTER_MS: '4000',
        PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
        PAYOUT_REVIEW_THRESHOLD: '5000',
        FEE_PERCENT: '1',
      };
    },
    // This suite's chain is new: forget the one the previous suite watched as ETHEREUM.
    newChain: 'payouts',
    merchant: false,
    // The last test restarts the worker: the suite closes whichever runs.
    cleanUp: async () => {
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    ({ devnet, proxy, api } = chain);
    worker = await startWorker();
  });

  /** A merchant whose balance was credited by a real payment of `paid` USDT on the devnet. */
  async function fundedMerchant(paid: string): Promise<TestMerchant> {
    const merchant = await api.createMerchant();
    const { body: session } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: paid,
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    await devnet.transfer('USDT', session.pay_address, paid);
    await waitFor(
      async () => (await payoutsApiGetSession(merchant, session.id)) === 'Paid',
      20_000,
    );
    return merchant;
  }

  async function payoutsApiGetSession(merchant: TestMerchant, id: string): Promise<string> {
    return (await api.get(`/v1/checkout/sessions/${id}`, merchant).expect(200)).body.status;
  }

  function createPayout(merchant: TestMerchant, amount: string, to: string, key = randomUUID()) {
    return api.post(
      '/v1/payouts',
      merchant,
      { amount, currency: 'USDT', network: 'ETHEREUM', to_address: to },
      { 'Idempotency-Key': key },
    );
  }

  async function payout(merchant: TestMerchant, id: string) {
    return (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body;
  }

  async function waitForStatus(merchant: TestMerchant, id: string, status: string, ms = 30_000) {
    await waitFor(
      async () => (await payout(merchant, id)).status === status,
      ms,
      `${id} ${status}`,
    );
    return payout(merchant, id);
  }

  /** The payout's first transaction is signed, stored and in the node's pool. */
  async function waitForBroadcast(payoutId: string) {
    await waitFor(
      async () =>
        (await api.count('payout_attempts', `payout_id = $1 AND status = 'Broadcast'`, [
          payoutId,
        ])) === 1,
      20_000,
      'the broadcast',
    );
  }

  /** A payout's events, oldest first: sequence, type, previous status and the payout's status. */
  async function eventsOf(merchant: TestMerchant, payoutId: string) {
    const { body } = await api.get(`/v1/events?object_id=${payoutId}`, merchant).expect(200);
    return (
      body as Array<{
        sequence: number;
        type: string;
        previous_status: string | null;
        data: { object: { status: string } };
      }>
    )
      .reverse()
      .map((event) => [
        event.sequence,
        event.type,
        event.previous_status,
        event.data.object.status,
      ]);
  }

  /** The merchant's only balance: `available` as given, nothing held. */
  async function expectAvailable(merchant: TestMerchant, available: string) {
    expect((await api.get('/v1/balances', merchant).expect(200)).body).toEqual([
      { currency: 'USDT', network: 'ETHEREUM', sub_merchant_code: null, available, held: '0' },
    ]);
  }

  it('runs only the schedules of its own hot wallets (a stale one would hold its job slots)', async () => {
    const queue = worker.get<Queue>(getQueueToken(QUEUES.payouts));
    // Left by a worker with a TRON hot wallet, or an older tracking interval.
    const options = { repeat: { every: 200 } };
    await queue.add(PAYOUT_JOBS.track, { network: 'TRON' }, { ...options, jobId: 'track:TRON' });
    await queue.add(
      PAYOUT_JOBS.track,
      { network: 'ETHEREUM' },
      { jobId: 'track:ETHEREUM', repeat: { every: 3_000 } },
    );

    // Keys are name:jobId::every (Bull's parsed fields split the ':' inside our job ids).
    const wanted = [
      `${PAYOUT_JOBS.reconcile}:reconcile::5000`,
      `${PAYOUT_JOBS.track}:track:ETHEREUM::200`,
    ];
    const keys = async () => (await queue.getRepeatableJobs()).map((job) => job.key).sort();
    // A stale job running at the moment of its removal schedules its next run again, as Bull does
    // for every repeatable job; the worker reschedules every 15 s, so it goes at the next pass.
    await waitFor(
      async () => {
        await worker.get(PayoutsScheduler).schedule();
        return JSON.stringify(await keys()) === JSON.stringify(wanted);
      },
      30_000,
      'only the configured schedules',
    );
    expect(await keys()).toEqual(wanted);
  });
  it('sends a payout funded by a real deposit: Completed, the recipient holds net_amount on chain', async () => {
    const merchant = await fundedMerchant('100');
    const recipient = Wallet.createRandom().address;
    const { body: created } = await createPayout(merchant, '40', recipient).expect(201);
    // The network's fixed fee (0.5 here) and no percent by default.
    expect(created).toMatchObject({ status: 'Pending', fee: '0.5', net_amount: '39.5' });

    const done = await waitForStatus(merchant, created.id, 'Completed');
    expect(done.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.completed_at).toMatch(/\+00:00$/);
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('39.5'));
    const onChain = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter(
      (t) => t.to === recipient,
    );
    expect(onChain).toEqual([{ to: recipient, amount: units('39.5'), txHash: done.tx_hash }]);
    await expectAvailable(merchant, '59');
    expect(await eventsOf(merchant, created.id)).toEqual([
      [1, 'payout.created', null, 'Pending'],
      [2, 'payout.processing', 'Pending', 'Processing'],
      [3, 'payout.completed', 'Processing', 'Completed'],
    ]);
  });

  it('50 concurrent requests with one Idempotency-Key: one payout, one transfer on chain', async () => {
    const merchant = await fundedMerchant('30');
    const recipient = Wallet.createRandom().address;
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => createPayout(merchant, '10', recipient, key)),
    );
    const created = responses.filter((response) => response.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('idempotency_in_progress');
    }
    await waitForStatus(merchant, created[0].body.id, 'Completed');
    expect(await api.count('payouts', 'merchant_id = $1', [merchant.id])).toBe(1);
    const onChain = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter(
      (t) => t.to === recipient,
    );
    expect(onChain).toHaveLength(1);
  });

  it('20 concurrent payouts exceeding the balance: what is sent never exceeds it', async () => {
    const merchant = await fundedMerchant('50'); // 49.5 available after the 1 % deposit fee
    const recipient = Wallet.createRandom().address;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => createPayout(merchant, '5', recipient)),
    );
    const accepted = responses.filter((response) => response.status === 201);
    expect(accepted).toHaveLength(9);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.body.error.code).toBe('insufficient_balance');
    }
    for (const response of accepted) await waitForStatus(merchant, response.body.id, 'Completed');
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('4.5') * 9n);
    await expectAvailable(merchant, '4.5');
  });

  it('holds a payout above the review threshold until approved, and releases a rejected one', async () => {
    const merchant = await fundedMerchant('12000');
    const recipient = Wallet.createRandom().address;
    const { body: large } = await createPayout(merchant, '6000', recipient).expect(201);
    const { body: other } = await createPayout(merchant, '5500', recipient).expect(201);
    expect(large.pending_reason).toBe('review_amount_above_threshold');
    // A small payout created after them completes: the worker ran, and left both alone.
    const { body: small } = await createPayout(merchant, '10', Wallet.createRandom().address);
    await waitForStatus(merchant, small.id, 'Completed');
    expect((await payout(merchant, large.id)).status).toBe('Pending');
    expect(await devnet.balanceOf('USDT', recipient)).toBe(0n);

    const reviews = api.app.get(PayoutReviews);
    await reviews.approve(large.id, 'alice');
    const done = await waitForStatus(merchant, large.id, 'Completed');
    expect(done).toMatchObject({ reviewed_by: 'alice', pending_reason: null });
    await reviews.reject(other.id, 'bob', 'destination not verified');
    expect(await payout(merchant, other.id)).toMatchObject({
      status: 'Rejected',
      reviewed_by: 'bob',
      error_reason: 'Rejected at review: destination not verified',
    });
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('5999.5'));
    await expectAvailable(merchant, '5870');
  });

  it('fails a payout whose transaction reverts on chain, and gives the funds back', async () => {
    const merchant = await fundedMerchant('20');
    await devnet.provider.send('evm_setAutomine', [false]);
    const hotBalance = await devnet.balanceOf('USDT', HOT_WALLET);
    try {
      const { body: created } = await createPayout(merchant, '10', Wallet.createRandom().address);
      await waitForBroadcast(created.id);
      // The hot wallet is emptied after the payout was checked and signed: the transfer reverts.
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, 0n);
      await devnet.provider.send('evm_mine', []);
      const failed = await waitForStatus(merchant, created.id, 'Failed');
      expect(failed.error_reason).toMatch(/mined in block \d+ but failed/);
      expect((await eventsOf(merchant, created.id)).map((event) => event[1])).toEqual([
        'payout.created',
        'payout.processing',
        'payout.failed',
      ]);
      expect(failed.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, hotBalance);
      await devnet.provider.send('evm_setAutomine', [true]);
    }
    await expectAvailable(merchant, '19.8');
  });

  it('replaces a transaction stuck under a base-fee spike with the same nonce and higher fees', async () => {
    const merchant = await fundedMerchant('20');
    const recipient = Wallet.createRandom().address;
    await devnet.provider.send('evm_setAutomine', [false]);
    try {
      const { body: created } = await createPayout(merchant, '10', recipient).expect(201);
      await waitForBroadcast(created.id);
      // The next block's base fee jumps far above what the first attempt bid.
      await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [
        '0x' + parseUnits('40', 'gwei').toString(16),
      ]);
      await devnet.provider.send('evm_mine', []);
      await waitFor(
        async () => (await api.count('payout_attempts', 'payout_id = $1', [created.id])) >= 2,
        30_000,
        'a replacement',
      );
      const attempts: Array<{
        nonce: string;
        max_fee_per_gas: string;
        max_priority_fee_per_gas: string;
      }> = await api.dataSource.query(
        `SELECT nonce, max_fee_per_gas, max_priority_fee_per_gas FROM payout_attempts
            WHERE payout_id = $1 ORDER BY attempt_number`,
        [created.id],
      );
      expect(new Set(attempts.map((a) => a.nonce)).size).toBe(1);
      const [first, second] = attempts;
      expect(BigInt(second.max_fee_per_gas) * 1000n).toBeGreaterThanOrEqual(
        BigInt(first.max_fee_per_gas) * 1125n,
      );
      expect(BigInt(second.max_priority_fee_per_gas) * 1000n).toBeGreaterThanOrEqual(
        BigInt(first.max_priority_fee_per_gas) * 1125n,
      );
      await devnet.provider.send('evm_setAutomine', [true]);
      await devnet.provider.send('evm_mine', []);
      const done = await waitForStatus(merchant, created.id, 'Completed');
      const onChain = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter(
        (t) => t.to === recipient,
      );
      expect(onChain).toHaveLength(1);
      expect(onChain[0].txHash).toBe(done.tx_hash);
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('re-broadcasts the stored bytes of a transaction dropped from the pool', async () => {
    const merchant = await fundedMerchant('20');
    const recipient = Wallet.createRandom().address;
    await devnet.provider.send('evm_setAutomine', [false]);
    try {
      const { body: created } = await createPayout(merchant, '10', recipient).expect(201);
      await waitForBroadcast(created.id);
      const [{ tx_hash: hash }] = await api.dataSource.query(
        `SELECT tx_hash FROM payout_attempts WHERE payout_id = $1`,
        [created.id],
      );
      await devnet.provider.send('anvil_dropTransaction', [hash]);
      expect(await devnet.provider.getTransaction(hash)).toBeNull();
      await waitFor(
        async () => (await devnet.provider.getTransaction(hash)) !== null,
        20_000,
        're-broadcast',
      );
      await devnet.provider.send('evm_mine', []);
      const done = await waitForStatus(merchant, created.id, 'Completed');
      expect(done.tx_hash).toBe(hash);
      expect(await api.count('payout_attempts', 'payout_id = $1', [created.id])).toBe(1);
    } finally {
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('replaces a stuck transaction although every re-send is answered "already known"', async () => {
    // A backend without the transaction in its pool calls it unknown, so it is sent again every
    // few seconds and the node answers "already known": its wait in the pool goes on.
    const merchant = await fundedMerchant('20');
    const recipient = Wallet.createRandom().address;
    await devnet.provider.send('evm_setAutomine', [false]);
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionByHash' ? rpcResultReply(request, null) : undefined,
    );
    try {
      const { body: created } = await createPayout(merchant, '10', recipient).expect(201);
      await waitForBroadcast(created.id);
      await waitFor(
        async () => (await api.count('payout_attempts', 'payout_id = $1', [created.id])) >= 2,
        40_000,
        'a replacement',
      );
      const [first] = await api.dataSource.query(
        `SELECT broadcast_count, last_broadcast_result FROM payout_attempts
          WHERE payout_id = $1 AND attempt_number = 1`,
        [created.id],
      );
      expect(first.broadcast_count).toBeGreaterThanOrEqual(2);
      proxy.intercept(undefined);
      await devnet.provider.send('evm_setAutomine', [true]);
      await devnet.provider.send('evm_mine', []);
      await waitForStatus(merchant, created.id, 'Completed');
      expect(
        (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient),
      ).toHaveLength(1);
    } finally {
      proxy.intercept(undefined);
      await devnet.provider.send('evm_setAutomine', [true]);
    }
  });

  it('sends a transaction the node never took at most every 3 s', async () => {
    const merchant = await fundedMerchant('20');
    const recipient = Wallet.createRandom().address;
    const sends = new Map<string, number>();
    // Every send is refused ("underpriced": a definite answer, never retried by the client).
    proxy.intercept((request) => {
      if (request.method === 'eth_getTransactionByHash') return rpcResultReply(request, null);
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      const hash = Transaction.from(String(request.params?.[0])).hash as string;
      sends.set(hash, (sends.get(hash) ?? 0) + 1);
      return rpcErrorReply(request, -32000, 'transaction underpriced');
    });
    const started = Date.now();
    try {
      const { body: created } = await createPayout(merchant, '10', recipient).expect(201);
      const ticks = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
      const before = ticks();
      await waitFor(async () => ticks() >= before + 30, 60_000, '30 tracker ticks');
      const [first] = await api.dataSource.query(
        `SELECT tx_hash FROM payout_attempts WHERE payout_id = $1 AND attempt_number = 1`,
        [created.id],
      );
      const elapsed = Date.now() - started;
      expect(sends.get(first.tx_hash)).toBeLessThanOrEqual(2 + Math.floor(elapsed / 3_000));
      proxy.intercept(undefined);
      await waitForStatus(merchant, created.id, 'Completed');
    } finally {
      proxy.intercept(undefined);
    }
  });

  it('waits while the RPC is down and finishes when it is back', async () => {
    const merchant = await fundedMerchant('30');
    const recipient = Wallet.createRandom().address;
    await proxy.down('unavailable');
    let ids: string[];
    try {
      const responses = await Promise.all(
        [1, 2, 3].map(() => createPayout(merchant, '5', recipient)),
      );
      ids = responses.map((response) => response.body.id);
      await waitFor(
        async () => (await payout(merchant, ids[0])).pending_reason === 'network_unavailable',
        30_000,
      );
    } finally {
      await proxy.up();
    }
    for (const id of ids) await waitForStatus(merchant, id, 'Completed', 60_000);
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('4.5') * 3n);
  });

  it('keeps a payout Pending while the hot wallet lacks tokens or gas, then sends it', async () => {
    const merchant = await fundedMerchant('20');
    const recipient = Wallet.createRandom().address;
    const tokens = await devnet.balanceOf('USDT', HOT_WALLET);
    await setTokenBalance(devnet, 'USDT', HOT_WALLET, units('1'));
    let id: string;
    try {
      ({
        body: { id },
      } = await createPayout(merchant, '10', recipient).expect(201));
      await waitFor(
        async () => (await payout(merchant, id)).pending_reason === 'hot_wallet_insufficient_token',
        20_000,
      );
    } finally {
      await setTokenBalance(devnet, 'USDT', HOT_WALLET, tokens);
    }
    const gas = await devnet.provider.getBalance(HOT_WALLET);
    await devnet.provider.send('anvil_setBalance', [HOT_WALLET, '0x0']);
    try {
      await waitFor(
        async () => (await payout(merchant, id)).pending_reason === 'hot_wallet_insufficient_gas',
        20_000,
      );
      expect((await payout(merchant, id)).status).toBe('Pending');
    } finally {
      await devnet.provider.send('anvil_setBalance', [HOT_WALLET, '0x' + gas.toString(16)]);
    }
    await waitForStatus(merchant, id, 'Completed');
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('9.5'));
  });

  it('recovers from a Redis flush: lost jobs are scheduled again and every payout completes', async () => {
    const merchant = await fundedMerchant('30');
    const recipient = Wallet.createRandom().address;
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const responses = await Promise.all(
        [1, 2, 3, 4].map(() => createPayout(merchant, '5', recipient)),
      );
      await redis.flushdb();
      for (const response of responses)
        await waitForStatus(merchant, response.body.id, 'Completed', 60_000);
    } finally {
      redis.disconnect();
    }
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('4.5') * 4n);
  });

  it('keeps the books equal to the chain: sent = completed nets, every entry balanced per token', async () => {
    const [{ unbalanced }] = await api.dataSource.query(
      `SELECT count(*)::int AS unbalanced FROM (SELECT entry_id FROM ledger_lines
         GROUP BY entry_id, currency, network HAVING sum(amount) <> 0) t`,
    );
    expect(unbalanced).toBe(0);
    // This suite's merchants only: other suites share the database, not this chain.
    const [{ completed, count }] = await api.dataSource.query(
      `SELECT COALESCE(sum(net_amount), 0)::text AS completed, count(*)::int AS count
         FROM payouts WHERE status = 'Completed' AND merchant_id = ANY($1::text[])`,
      [api.merchantIds],
    );
    const leftHotWallet = hotWalletStart - (await devnet.balanceOf('USDT', HOT_WALLET));
    expect(leftHotWallet).toBe(units(formatAmount(completed)));
    expect(await transfersFrom(devnet, 'USDT', HOT_WALLET)).toHaveLength(count);
    const [{ sent }] = await api.dataSource.query(
      `SELECT COALESCE(-sum(l.amount), 0)::text AS sent FROM ledger_lines l
         JOIN ledger_entries e ON e.id = l.entry_id
        WHERE l.account = 'hot_wallet:ETHEREUM:USDT'
          AND e.reference = ANY(SELECT 'payout:' || id || ':completed' FROM payouts
                                 WHERE merchant_id = ANY($1::text[]))`,
      [api.merchantIds],
    );
    expect(formatAmount(sent)).toBe(formatAmount(completed));
  });

  it('after the chain is reset (a restarted devnet), a restarted worker pays from the new nonces', async () => {
    const merchant = await api.createMerchant();
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '50',
    });
    // Every payout transaction above is forgotten: the hot wallet's nonce is 0 again.
    await devnet.revert(chainStart);
    // A restarted node starts with an empty pool and an ordinary base fee.
    await devnet.provider.send('anvil_dropAllTransactions', []);
    await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00']);
    await devnet.mine();
    expect(await devnet.provider.getTransactionCount(HOT_WALLET)).toBe(0);
    await worker.close();
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();
    const recipient = Wallet.createRandom().address;
    const { body: created } = await createPayout(merchant, '10', recipient).expect(201);
    await waitForStatus(merchant, created.id, 'Completed');
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('9.5'));
    const [{ nonce }] = await api.dataSource.query(
      `SELECT nonce::int AS nonce FROM payout_attempts WHERE payout_id = $1`,
      [created.id],
    );
    expect(nonce).toBe(0);
  });
});
