import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { toQuantity, Transaction, Wallet } from 'ethers';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { NonceProofWaits } from '@app/payouts/processing/nonce-proof-waits';
import type { PayoutAttempt } from '@app/payouts/processing/payout-journal.repository';
import { NonceProofWaitGauge } from '../../apps/worker/src/payouts/nonce-proof-wait.gauge';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy, rpcErrorReply, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const CONFIRMATIONS = 3;

/*
 * A payout whose nonce an EIP-7702 authorization of the hot wallet's took (a key used outside the
 * service) is signed anew once that is proven at a confirmed depth (review Low, docs/payouts.md).
 * The proof is made when the block's state can still be read and waits for its confirmations:
 * it is stored, so that a worker restarted meanwhile on a node that has pruned that state uses it
 * instead of leaving the payout Processing with its funds held. Where no proof can be made, the
 * wait is counted and alerted on.
 */
describe('Payout tracker: proofs of a nonce taken by an authorization outlive the worker', () => {
  const chain = useChainSuite({
    proxy: true,
    confirmations: CONFIRMATIONS,
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_REPLACE_AFTER_MS: '600000',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
    },
    newChain: 'payouts',
    merchant: { usdt: '1000' },
    // A test restarts the worker: the suite closes whichever runs.
    cleanUp: async () => {
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let merchant: TestMerchant;
  /** A node that keeps state for blocks from `prunedBelow` up, and none by hash. */
  let prunedBelow = 0;
  const swallowed = new Set<string>();
  /**
   * The recipient whose payout's first transaction the proxy swallows (null: none). Matched by
   * the transfer's recipient, not by arrival: any other transaction the worker broadcasts
   * meanwhile must reach the node, or the payout's own transfer would be mined in its place.
   */
  let swallowTransferTo: string | null = null;
  /** A backend ahead of the others: the hot wallet's 'latest' count it answers. */
  let aheadCount: number | null = null;
  /** A backend on a side fork at this height: another hash for its block. */
  let divergentBlock: number | null = null;
  let divergentAnswers = 0;

  beforeAll(async () => {
    ({ devnet, proxy, api, merchant } = chain);
    proxy.rewrite((request, answer) => {
      if (request.method !== 'eth_getBlockByNumber' || divergentBlock === null) return undefined;
      if (request.params?.[0] !== toQuantity(divergentBlock)) return undefined;
      const parsed = JSON.parse(answer) as { result?: { hash?: string } | null };
      if (!parsed.result?.hash) return undefined;
      divergentAnswers += 1;
      return JSON.stringify({
        ...parsed,
        result: { ...parsed.result, hash: `0x${'ab'.repeat(32)}` },
      });
    });
    proxy.intercept((request) => {
      if (request.method === 'eth_getTransactionCount') {
        const tag = request.params?.[1];
        if (
          aheadCount !== null &&
          tag === 'latest' &&
          String(request.params?.[0]).toLowerCase() === HOT_WALLET.toLowerCase()
        ) {
          return rpcResultReply(request, toQuantity(aheadCount));
        }
        const pruned =
          prunedBelow > 0 &&
          ((typeof tag === 'string' && tag.startsWith('0x') && Number(tag) < prunedBelow) ||
            (typeof tag === 'object' && tag !== null));
        return pruned ? rpcErrorReply(request, -32000, 'missing trie node') : undefined;
      }
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      // The first transaction of each payout never reaches the node (the proxy says it took it).
      const transaction = Transaction.from(String(request.params?.[0]));
      const hash = transaction.hash as string;
      const recipient = swallowTransferTo?.slice(2).toLowerCase();
      if (recipient && transaction.data.toLowerCase().includes(recipient)) {
        swallowed.add(hash);
        swallowTransferTo = null;
      }
      return swallowed.has(hash) ? rpcResultReply(request, hash) : undefined;
    });
    worker = await startWorker();
  });

  const attemptsOf = (id: string): Promise<Array<{ status: string; nonce: string }>> =>
    api.dataSource.query(
      `SELECT status, nonce FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
      [id],
    );

  /** A payout whose first transaction is swallowed; its id and that transaction's nonce. */
  async function payoutWithLostTransfer(recipient: string): Promise<{ id: string; nonce: number }> {
    swallowTransferTo = recipient;
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    await waitFor(async () => swallowTransferTo === null, 30_000, 'the first broadcast');
    const [first] = await attemptsOf(body.id);
    return { id: body.id, nonce: Number(first.nonce) };
  }

  /** The hot wallet's authorization with `nonce`, carried by the payer's type-4 transaction. */
  async function authorizationTakes(nonce: number): Promise<string> {
    const hotWallet = new Wallet(DEVNET_ACCOUNTS.hotWallet.privateKey);
    const authorization = await hotWallet.authorize({
      address: DEVNET_ACCOUNTS.payer.address,
      nonce,
      chainId: devnet.chainId,
    });
    const sent = await devnet.payer.sendTransaction({
      type: 4,
      to: DEVNET_ACCOUNTS.payer.address,
      authorizationList: [authorization],
    });
    await sent.wait();
    return sent.hash.toLowerCase();
  }

  const statusOf = async (id: string): Promise<string> =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body.status;

  const waitForCompleted = (id: string) =>
    waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await statusOf(id)) === 'Completed';
      },
      90_000,
      `${id} Completed`,
    );

  const storedProof = async (nonce: number) =>
    (
      await api.dataSource.query(
        `SELECT tx_hash, by_authorization FROM nonce_proofs
          WHERE network = 'ETHEREUM' AND address = lower($1) AND nonce = $2`,
        [HOT_WALLET, nonce],
      )
    )[0] as { tx_hash: string; by_authorization: boolean } | undefined;

  const sentTo = async (recipient: string) =>
    (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient);

  it('signs anew after a restart on a pruned node, from the proof stored before it', async () => {
    const recipient = Wallet.createRandom().address;
    const { id, nonce } = await payoutWithLostTransfer(recipient);
    const consumer = await authorizationTakes(nonce);
    // Proven while the state is there, one block deep of three: stored, not yet acted on.
    await waitFor(async () => (await storedProof(nonce)) !== undefined, 60_000, 'the proof');
    expect(await storedProof(nonce)).toEqual({ tx_hash: consumer, by_authorization: true });
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Broadcast']);

    // The worker restarts; its node has pruned the block's state meanwhile.
    await worker!.close();
    worker = undefined;
    prunedBelow = await devnet.head();
    worker = await startWorker();
    try {
      await waitForCompleted(id);
    } finally {
      prunedBelow = 0;
    }
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => a.status)).toEqual(['Superseded', 'Broadcast']);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  it('alerts on a payout waiting on a nonce no node here can prove, and ends it once one can', async () => {
    const recipient = Wallet.createRandom().address;
    const other = new Client({ connectionString: TEST_DATABASE_URL });
    await other.connect();
    let id: string;
    let nonce: number;
    let consumer: string;
    try {
      // The tracker first looks once the block is deep and its state pruned.
      await other.query(`SELECT pg_advisory_lock(hashtext('payouts.track:ETHEREUM'))`);
      ({ id, nonce } = await payoutWithLostTransfer(recipient));
      consumer = await authorizationTakes(nonce);
      await devnet.provider.send('anvil_mine', ['0x5']);
      prunedBelow = await devnet.head();
    } finally {
      await other.end();
    }
    const waitOf = async () =>
      (
        await api.dataSource.query(
          `SELECT nonce, alerted_at FROM payout_nonce_proof_waits WHERE payout_id = $1`,
          [id],
        )
      )[0] as { nonce: string; alerted_at: Date | null } | undefined;
    await waitFor(async () => (await waitOf()) !== undefined, 60_000, 'the wait recorded');
    expect(await waitOf()).toEqual({ nonce: String(nonce), alerted_at: null });
    expect(await statusOf(id)).toBe('Processing');

    const gauges = new Registry();
    new NonceProofWaitGauge(gauges, api.app.get(DataSource));
    const gauged = async () =>
      (await gauges.getMetricsAsJSON())[0].values.find((v) => v.labels.network === 'ETHEREUM')
        ?.value ?? 0;
    expect(await gauged()).toBe(0);
    // Ten minutes later (the wait's start moved back): alerted once, and gauged.
    await api.dataSource.query(
      `UPDATE payout_nonce_proof_waits SET since = now() - interval '11 minutes'
        WHERE payout_id = $1`,
      [id],
    );
    await waitFor(async () => (await waitOf())?.alerted_at != null, 60_000, 'the alert');
    expect(await gauged()).toBe(1);
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Broadcast']);

    // A node with the state: proven, stored, signed anew, paid once; the wait ends.
    prunedBelow = 0;
    await waitForCompleted(id);
    expect(await storedProof(nonce)).toEqual({ tx_hash: consumer, by_authorization: true });
    expect(await waitOf()).toBeUndefined();
    expect(await gauged()).toBe(0);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  /** A payout's live wait (not paused by a tick that found its nonce unused). */
  const waitRowOf = async (id: string) =>
    (
      await api.dataSource.query(
        `SELECT nonce FROM payout_nonce_proof_waits WHERE payout_id = $1 AND unused_at IS NULL`,
        [id],
      )
    )[0] as { nonce: string } | undefined;

  /*
   * Review r4, F4: one backend answering another hash at the proof's height is one backend's
   * word, not a reorg. The stored proof is not used that tick but kept: on a pruned node no new
   * one can be made, and forgetting it left the payout Processing for ever.
   */
  it('keeps a stored proof while a backend answers another hash for its block, and uses it once they agree', async () => {
    const recipient = Wallet.createRandom().address;
    const { id, nonce } = await payoutWithLostTransfer(recipient);
    const consumer = await authorizationTakes(nonce);
    await waitFor(async () => (await storedProof(nonce)) !== undefined, 60_000, 'the proof');
    const [{ block }]: Array<{ block: string }> = await api.dataSource.query(
      `SELECT block_number::text AS block FROM nonce_proofs
        WHERE network = 'ETHEREUM' AND address = lower($1) AND nonce = $2`,
      [HOT_WALLET, nonce],
    );
    // The state pruned (no proof can be made again), and a backend on a side fork at its height.
    prunedBelow = (await devnet.head()) + 1_000;
    divergentAnswers = 0;
    divergentBlock = Number(block);
    try {
      await devnet.provider.send('anvil_mine', [toQuantity(CONFIRMATIONS)]);
      await waitFor(
        async () => divergentAnswers >= 1,
        60_000,
        'a tick reading the divergent block',
      );
      // More ticks go by (each reads the hot wallet's count), the proof deep enough to act on.
      const counts = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
      const seen = counts();
      await waitFor(async () => counts() >= seen + 10, 60_000, 'ten more count reads');
      expect(await storedProof(nonce)).toEqual({ tx_hash: consumer, by_authorization: true });
      expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Broadcast']);
      // The backends agree again: the kept proof, deep enough by now, signs the payout anew.
      divergentBlock = null;
      await waitForCompleted(id);
    } finally {
      divergentBlock = null;
      prunedBelow = 0;
    }
    expect((await attemptsOf(id)).map((a) => a.status)).toEqual(['Superseded', 'Broadcast']);
    expect(await sentTo(recipient)).toHaveLength(1);
  });

  /*
   * Review r4, F5: a backend ahead of the others says the nonce is used once; no proof follows
   * (the wait starts), then the counts say unused again. The wait ends with that tick: the gauge
   * counts only payouts really waiting on an unprovable nonce.
   */
  it('ends a nonce-proof wait when a later tick finds the nonce unused', async () => {
    const recipient = Wallet.createRandom().address;
    const { id, nonce } = await payoutWithLostTransfer(recipient);
    aheadCount = nonce + 1;
    try {
      await waitFor(async () => (await waitRowOf(id)) !== undefined, 60_000, 'the wait recorded');
    } finally {
      aheadCount = null;
    }
    await waitFor(async () => (await waitRowOf(id)) === undefined, 60_000, 'the wait ended');
    expect(await statusOf(id)).toBe('Processing');
    // The lost transaction reaches the node at its next re-broadcast: paid once.
    swallowed.clear();
    await waitForCompleted(id);
    expect(await sentTo(recipient)).toHaveLength(1);
  });
  /*
   * Review r9c, R2: behind a balancer whose backends flap between "used" and "unused", each
   * "unused" deleted the wait and the next "used" started a new one: a payout held for good never
   * alerted. A wait now pauses for the alert window and goes on when the nonce is found used again.
   */
  it('goes on with a nonce-proof wait across a tick that found the nonce unused: flapping backends alert', async () => {
    const recipient = Wallet.createRandom().address;
    const { id, nonce } = await payoutWithLostTransfer(recipient);
    const [{ wallet_address }]: Array<{ wallet_address: string }> = await api.dataSource.query(
      `SELECT wallet_address FROM payout_attempts WHERE payout_id = $1 AND attempt_number = 1`,
      [id],
    );
    const attempt = { wallet_address, nonce: String(nonce) } as PayoutAttempt;
    const waits = new NonceProofWaits(api.dataSource);
    const row = async () =>
      (
        await api.dataSource.query(
          `SELECT since < now() - interval '10 minutes' AS long, alerted_at IS NOT NULL AS alerted
             FROM payout_nonce_proof_waits WHERE payout_id = $1`,
          [id],
        )
      )[0] as { long: boolean; alerted: boolean } | undefined;

    // "Used", no proof: a wait, started long ago (moved back as in the alert test above).
    await waits.unproven(id, 'ETHEREUM', attempt);
    await api.dataSource.query(
      `UPDATE payout_nonce_proof_waits SET since = now() - interval '11 minutes'
        WHERE payout_id = $1`,
      [id],
    );
    // "Unused" (the tracker's own ticks say so too: the transfer is swallowed), then "used".
    await waits.nonceUnused([id]);
    expect(await waitRowOf(id)).toBeUndefined();
    await waits.unproven(id, 'ETHEREUM', attempt);
    expect(await row()).toEqual({ long: true, alerted: true });

    // Unused for the whole window: the wait goes.
    await api.dataSource.query(
      `UPDATE payout_nonce_proof_waits SET unused_at = now() - interval '11 minutes'
        WHERE payout_id = $1`,
      [id],
    );
    await waits.nonceUnused([]);
    expect(await row()).toBeUndefined();

    // The lost transaction reaches the node at its next re-broadcast: paid once.
    swallowed.clear();
    await waitForCompleted(id);
    expect(await sentTo(recipient)).toHaveLength(1);
  });
});
