import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Transaction, Wallet } from 'ethers';
import { Client } from 'pg';
import { PayoutTracker } from '@app/payouts';
import { PayoutJournalRepository } from '@app/payouts/processing/payout-journal.repository';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy, rpcErrorReply, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;

/*
 * What the tracker may conclude from an RPC that answers from backends at other heights: a new
 * nonce is signed only on the block that used the old one, read and holding another transaction
 * (DESIGN.md section 4). The RPC goes through a proxy that plays the lagging backend.
 */
describe('Payout tracker decides from positive proofs only', () => {
  const chain = useChainSuite({
    proxy: true,
    confirmations: 2,
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      // No replacement may blur what is tested: every attempt here has its own nonce.
      PAYOUT_REPLACE_AFTER_MS: '600000',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
    },
    newChain: 'payouts',
    worker: true,
    merchant: { usdt: '1000' },
  });
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let worker: INestApplicationContext;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, proxy, api, worker, merchant } = chain));

  afterEach(() => proxy.intercept(undefined));

  async function createPayout(to: string): Promise<string> {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: to },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body.id as string;
  }

  const statusOf = async (id: string): Promise<string> =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body.status;

  const attemptsOf = (id: string): Promise<Array<{ status: string; nonce: string }>> =>
    api.dataSource.query(
      `SELECT status, nonce FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
      [id],
    );

  /** Waits until the tracker has asked for the wallet's count `ticks` more times. */
  async function waitForTicks(ticks: number): Promise<void> {
    const counted = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
    const before = counted();
    await waitFor(async () => counted() >= before + ticks, 60_000, `${ticks} tracker ticks`);
  }

  /** Completed, with blocks mined meanwhile (the devnet mines only on demand). */
  const waitForCompleted = (id: string) =>
    waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await statusOf(id)) === 'Completed';
      },
      60_000,
      `${id} Completed`,
    );

  const sentTo = async (recipient: string) =>
    (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient);

  it('never signs again a mined payout whose receipt a lagging backend does not have', async () => {
    // Counts and blocks come from the fresh backend; receipts and transactions from one that
    // has not seen the payout's block yet.
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionReceipt' ||
      request.method === 'eth_getTransactionByHash'
        ? rpcResultReply(request, null)
        : undefined,
    );
    const recipient = Wallet.createRandom().address;
    const id = await createPayout(recipient);
    await waitFor(async () => (await sentTo(recipient)).length === 1, 30_000, 'the transfer');
    await devnet.provider.send('anvil_mine', ['0x5']);

    await waitForTicks(20);
    expect(await attemptsOf(id)).toEqual([{ status: 'Broadcast', nonce: expect.any(String) }]);
    expect(await statusOf(id)).toBe('Processing');

    proxy.intercept(undefined);
    await waitForCompleted(id);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  it('signs a new nonce once a confirmed block shows another transaction used it, and pays once', async () => {
    // The payout's first transaction never reaches the node (the proxy says it took it); a
    // transaction sent from the hot wallet outside the service takes its nonce.
    const swallowed = new Set<string>();
    proxy.intercept((request) => {
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      const hash = Transaction.from(String(request.params?.[0])).hash as string;
      if (swallowed.size === 0) swallowed.add(hash);
      return swallowed.has(hash) ? rpcResultReply(request, hash) : undefined;
    });
    const recipient = Wallet.createRandom().address;
    const id = await createPayout(recipient);
    await waitFor(async () => swallowed.size === 1, 30_000, 'the first broadcast');
    const [first] = await attemptsOf(id);
    const outsider = new Wallet(DEVNET_ACCOUNTS.hotWallet.privateKey, devnet.provider);
    await (
      await outsider.sendTransaction({ to: HOT_WALLET, value: 0n, nonce: Number(first.nonce) })
    ).wait();

    // Used, but one block deep: not yet proof enough (two confirmations).
    await waitForTicks(10);
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Broadcast']);

    await devnet.provider.send('anvil_mine', ['0x2']);
    await waitForCompleted(id);
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => a.status)).toEqual(['Superseded', 'Broadcast']);
    expect(Number(attempts[1].nonce)).toBeGreaterThan(Number(first.nonce));
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  it('finds the transaction that used the nonce on a node that keeps only recent state', async () => {
    // A pruned node answers counts at recent blocks only ("missing trie node" below): the block
    // that used the nonce is found among the block bodies instead.
    let prunedBelow = 0;
    const swallowed = new Set<string>();
    proxy.intercept((request) => {
      if (request.method === 'eth_getTransactionCount') {
        const tag = request.params?.[1];
        if (typeof tag === 'string' && tag.startsWith('0x') && Number(tag) < prunedBelow) {
          return rpcErrorReply(request, -32000, 'missing trie node');
        }
        return undefined;
      }
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      const hash = Transaction.from(String(request.params?.[0])).hash as string;
      if (swallowed.size === 0) swallowed.add(hash);
      return swallowed.has(hash) ? rpcResultReply(request, hash) : undefined;
    });
    const recipient = Wallet.createRandom().address;
    const other = new Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    let id: string;
    try {
      id = await createPayout(recipient);
      await waitFor(async () => swallowed.size === 1, 30_000, 'the first broadcast');
      // The tracker first looks when the other transaction is already deep.
      await other.query(`SELECT pg_advisory_lock(hashtext('payouts.track:ETHEREUM'))`);
      const [first] = await attemptsOf(id);
      const outsider = new Wallet(DEVNET_ACCOUNTS.hotWallet.privateKey, devnet.provider);
      await (
        await outsider.sendTransaction({ to: HOT_WALLET, value: 0n, nonce: Number(first.nonce) })
      ).wait();
      // Deeper than one tick's body scan (512 blocks) below the head; state kept for 130 blocks.
      await devnet.provider.send('anvil_mine', ['0x' + (600).toString(16)]);
      prunedBelow = (await devnet.head()) - 130;
    } finally {
      await other.end();
    }
    await waitForCompleted(id);
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Superseded', 'Broadcast']);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  it("never signs again on a pruned node whose bodies show the hot wallet's authorization for another chain above its mined payout", async () => {
    // Receipts from a backend behind the payout's block; counts only for recent state. An
    // EIP-7702 authorization the hot wallet signed for another chain with the payout's nonce,
    // copied into a later type-4 transaction, took nothing here (sweeps review M1): the
    // payout's own transaction is the consumer, and it is never signed again.
    let prunedBelow = 0;
    proxy.intercept((request) => {
      if (
        request.method === 'eth_getTransactionReceipt' ||
        request.method === 'eth_getTransactionByHash'
      ) {
        return rpcResultReply(request, null);
      }
      if (request.method !== 'eth_getTransactionCount') return undefined;
      const tag = request.params?.[1];
      if (typeof tag === 'string' && tag.startsWith('0x') && Number(tag) < prunedBelow) {
        return rpcErrorReply(request, -32000, 'missing trie node');
      }
      return undefined;
    });
    const recipient = Wallet.createRandom().address;
    const other = new Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    let id: string;
    try {
      // The tracker first looks once the copy is mined and the node pruned.
      await other.query(`SELECT pg_advisory_lock(hashtext('payouts.track:ETHEREUM'))`);
      id = await createPayout(recipient);
      await waitFor(async () => (await sentTo(recipient)).length === 1, 30_000, 'the transfer');
      const [first] = await attemptsOf(id);
      const hotWallet = new Wallet(DEVNET_ACCOUNTS.hotWallet.privateKey);
      const elsewhere = await hotWallet.authorize({
        address: DEVNET_ACCOUNTS.payer.address,
        nonce: Number(first.nonce),
        chainId: devnet.chainId + 1,
      });
      await (
        await devnet.payer.sendTransaction({
          type: 4,
          to: DEVNET_ACCOUNTS.payer.address,
          authorizationList: [elsewhere],
        })
      ).wait();
      await devnet.provider.send('anvil_mine', ['0x3']);
      prunedBelow = await devnet.head();
    } finally {
      await other.end();
    }
    await waitForTicks(20);
    expect(await attemptsOf(id)).toEqual([{ status: 'Broadcast', nonce: expect.any(String) }]);
    expect(await sentTo(recipient)).toHaveLength(1);

    proxy.intercept(undefined);
    await waitForCompleted(id);
    expect(await attemptsOf(id)).toEqual([{ status: 'Broadcast', nonce: expect.any(String) }]);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  it('runs one tick of a network at a time, across processes', async () => {
    const tracker = worker.get(PayoutTracker);
    // Another worker's tick holds the network: this one does nothing, and nothing completes.
    const other = new Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('payouts.track:ETHEREUM'))`);
      const recipient = Wallet.createRandom().address;
      const id = await createPayout(recipient);
      await waitFor(async () => (await sentTo(recipient)).length === 1, 30_000, 'the transfer');
      await devnet.provider.send('anvil_mine', ['0x3']);
      expect(await tracker.track('ETHEREUM')).toBeNull();
      expect(await statusOf(id)).toBe('Processing');

      await other.query(`SELECT pg_advisory_unlock(hashtext('payouts.track:ETHEREUM'))`);
      await waitForCompleted(id);
    } finally {
      await other.end();
    }
    // Two calls at once in one process: one tick, the other returns at once.
    const reports = await Promise.all([tracker.track('ETHEREUM'), tracker.track('ETHEREUM')]);
    expect(reports.filter((report) => report === null).length).toBeGreaterThanOrEqual(1);
  });

  it('holds a proof only for the attempts it was drawn from, and only if each live one is proven', async () => {
    const journal = worker.get(PayoutJournalRepository);
    const recipient = Wallet.createRandom().address;
    proxy.intercept((request) =>
      request.method === 'eth_sendRawTransaction' ? rpcResultReply(request, '0x') : undefined,
    );
    const id = await createPayout(recipient);
    await waitFor(async () => (await attemptsOf(id)).length === 1, 30_000, 'the attempt');
    // The worker's ticks stay out while this test plays another tick.
    const other = new Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('payouts.track:ETHEREUM'))`);
      const known = await journal.attemptsOf(id);
      const [proven] = known;
      const sameNonce = (attempt: { nonce: string | null; wallet_address: string }) =>
        String(attempt.nonce) === String(proven.nonce) &&
        attempt.wallet_address === proven.wallet_address;
      const unchanged = (drawnFrom = known) =>
        api.dataSource.transaction((manager) =>
          journal.attemptsUnchanged(manager, id, drawnFrom, sameNonce),
        );
      expect(await unchanged()).toBe(true);

      // Another tick re-signed meanwhile: the attempt retired, a new one at another nonce.
      await api.dataSource.query(
        `UPDATE payout_attempts SET status = 'Superseded' WHERE payout_id = $1`,
        [id],
      );
      await api.dataSource.query(
        `INSERT INTO payout_attempts (payout_id, attempt_number, network, wallet_address, nonce,
            tx_hash, raw_transaction, status)
          SELECT payout_id, 2, network, wallet_address, nonce + 1000, $2, raw_transaction, 'Signed'
            FROM payout_attempts WHERE payout_id = $1`,
        [id, `0x${'ab'.repeat(32)}`],
      );
      expect(await unchanged()).toBe(false);
      // A proof about the old nonce, with the attempts read after that re-sign: the live attempt
      // is not one the proof is about.
      expect(await unchanged(await journal.attemptsOf(id))).toBe(false);

      // Leave nothing in flight for later suites.
      await api.dataSource.query(
        `DELETE FROM payout_attempts WHERE payout_id = $1 AND attempt_number = 2`,
        [id],
      );
      await api.dataSource.query(
        `UPDATE payout_attempts SET status = 'Broadcast' WHERE payout_id = $1`,
        [id],
      );
    } finally {
      await other.end();
    }
    proxy.intercept(undefined);
    await waitForCompleted(id);
  });
});
