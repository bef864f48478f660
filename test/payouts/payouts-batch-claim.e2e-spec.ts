import type { INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Wallet } from 'ethers';
import { Client } from 'pg';
import { QUEUES } from '@app/common';
import { PayoutSender } from '@app/payouts';
import { PayoutBroadcaster } from '../../libs/payouts/src/processing/payout-broadcaster';
import { CLAIM_BATCH_SIZE } from '../../libs/payouts/src/processing/payout-sender';
import { BroadcastGate } from '../support/broadcast-gate';
import { useChainSuite } from '../support/chain-suite';
import { useChainEnvironment } from '../support/chain-test-env';
import type { Devnet } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { ownHotWalletEnvironment, transfersFrom } from '../support/payout-chain';
import { createPayouts } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

// A hot wallet of this suite's own (see payouts-hot-wallet-coverage): no earlier suite's nonces.
const HOT_KEY = Wallet.createRandom();
const HOT_WALLET = HOT_KEY.address;

interface AttemptRow {
  payout_id: string;
  attempt_number: number;
  nonce: string;
  tx_hash: string;
  status: string;
  broadcast_count: number;
}

/*
 * A send job claims the other due payouts of its token along with its own: one hot-wallet lock,
 * consecutive nonces, every transaction journaled in the claim's transaction before any
 * broadcast. Two workers claiming at once take disjoint payouts and leave no nonce unused; a
 * worker that dies between the journal and the broadcast leaves stored bytes that are sent once.
 */
describe('Payouts claimed in batches', () => {
  const workers: INestApplicationContext[] = [];
  const chain = useChainSuite({
    environment: ({ devnet }) =>
      ownHotWalletEnvironment(devnet, HOT_KEY.privateKey, {
        // Three apps in this process (the API, two workers) on a PostgreSQL other suites share.
        DATABASE_POOL_SIZE: '6',
      }),
    newChain: 'payouts',
    merchant: { usdt: '100000' },
    // The tests start their workers; the gate is this suite's.
    cleanUp: async () => {
      for (const worker of workers) await worker.close().catch(() => undefined);
      await gate?.stop();
    },
  });
  let devnet: Devnet;
  let gate: BroadcastGate;
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    ({ devnet, api, merchant } = chain);
    gate = await BroadcastGate.start(devnet.rpcUrl);
  });

  /** A worker whose queue takes no job until resumed: the test calls its sender itself. */
  async function pausedWorker(): Promise<{ worker: INestApplicationContext; queue: Queue }> {
    const worker = await startWorker();
    workers.push(worker);
    const queue = worker.get<Queue>(getQueueToken(QUEUES.payouts));
    await queue.pause(true);
    return { worker, queue };
  }

  const attemptsOf = (ids: string[]) =>
    api.dataSource.query(
      `SELECT payout_id, attempt_number, nonce, tx_hash, status, broadcast_count
         FROM payout_attempts WHERE payout_id = ANY($1) ORDER BY nonce`,
      [ids],
    ) as Promise<AttemptRow[]>;

  /** Queries of this suite's database waiting for a lock (a row's or an advisory one). */
  const claimsWaiting = async (observer: Client): Promise<number> =>
    (
      await observer.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      )
    ).rows[0].waiting;

  const statusesOf = async (ids: string[]) =>
    (
      (await api.dataSource.query(`SELECT status FROM payouts WHERE id = ANY($1)`, [
        ids,
      ])) as Array<{ status: string }>
    ).map((row) => row.status);

  it('two workers claim disjoint payouts with consecutive nonces, no gap, each sent once', async () => {
    const first = await pausedWorker();
    const second = await pausedWorker();
    const startNonce = await devnet.provider.getTransactionCount(HOT_WALLET, 'latest');
    const ids = await createPayouts(api, merchant, CLAIM_BATCH_SIZE * 2 + 20);
    // Who claimed what: a claim broadcasts what it signed, right after its commit.
    const claimedBy = [first, second].map(({ worker }) => {
      const claimed: string[] = [];
      const broadcaster = worker.get(PayoutBroadcaster, { strict: false });
      const broadcast = broadcaster.broadcast.bind(broadcaster);
      jest.spyOn(broadcaster, 'broadcast').mockImplementation((attempt) => {
        claimed.push(attempt.payout_id);
        return broadcast(attempt);
      });
      return claimed;
    });
    const senders = [first.worker.get(PayoutSender), second.worker.get(PayoutSender)];

    // Both workers inside a claim at once, whatever the machine's speed: the hot wallet's row is
    // held while the first claim leases its payouts and waits on it; the second worker then
    // sends a payout the first did not lease and waits too (on the row, or on the sandbox
    // balance's lock the first claim holds). Left to Promise.all alone, a quick first worker
    // could lease all of them before the second asked.
    const holder = new Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    const claims: Array<Promise<unknown>> = [];
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' FOR UPDATE`);
      claims.push(senders[0].send(ids[0]));
      await waitFor(async () => (await claimsWaiting(holder)) >= 1, 60_000, 'the first claim');
      const [unleased] = (await api.dataSource.query(
        `SELECT id FROM payouts WHERE id = ANY($1) AND next_attempt_at <= now() ORDER BY id LIMIT 1`,
        [ids],
      )) as Array<{ id: string }>;
      claims.push(senders[1].send(unleased.id));
      await waitFor(async () => (await claimsWaiting(holder)) >= 2, 60_000, 'the second claim');
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end();
    }
    await Promise.all([...claims, ...ids.map((id, index) => senders[index % 2].send(id))]);
    // Each worker claimed some, none claimed by both, and every payout by one of them.
    expect(claimedBy[0].length).toBeGreaterThan(0);
    expect(claimedBy[1].length).toBeGreaterThan(0);
    expect([...claimedBy[0], ...claimedBy[1]].sort()).toEqual([...ids].sort());

    const attempts = await attemptsOf(ids);
    // Disjoint: one attempt per payout. Consecutive: the nonces are start .. start + n - 1.
    expect(attempts.map((a) => a.payout_id).sort()).toEqual([...ids].sort());
    expect(attempts.every((a) => a.attempt_number === 1)).toBe(true);
    expect(attempts.map((a) => Number(a.nonce))).toEqual(ids.map((_, index) => startNonce + index));
    // Journaled before any broadcast, and broadcast by the claim that signed it.
    expect(attempts.every((a) => a.broadcast_count >= 1)).toBe(true);

    await first.queue.resume(true);
    await second.queue.resume(true);
    await waitFor(
      async () => (await statusesOf(ids)).every((status) => status === 'Completed'),
      120_000,
      'every payout Completed',
    );
    // On chain: one transfer per payout, the wallet's count moved by exactly as many.
    const sent = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).map((t) => t.txHash);
    expect(new Set(sent)).toEqual(new Set(attempts.map((a) => a.tx_hash)));
    expect(sent).toHaveLength(ids.length);
    expect(await devnet.provider.getTransactionCount(HOT_WALLET, 'latest')).toBe(
      startNonce + ids.length,
    );
    for (const worker of workers.splice(0)) await worker.close();
  });

  it('a batch claim that dies between journal and broadcast leaves stored bytes, sent once by the next worker', async () => {
    const startNonce = await devnet.provider.getTransactionCount(HOT_WALLET, 'latest');
    const before = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).length;
    // The first worker's broadcasts hang at the gate, unanswered and never forwarded.
    const gated = useChainEnvironment(devnet.networksFileJson({ rpcUrls: [gate.url] }));
    gate.close();
    let dying: { worker: INestApplicationContext; queue: Queue };
    try {
      dying = await pausedWorker();
    } finally {
      gated.restore();
    }
    const ids = await createPayouts(api, merchant, 10);
    const claim = dying.worker.get(PayoutSender).send(ids[0]);
    claim.catch(() => undefined);

    // One claim took all ten: journaled, none broadcast, the first hanging on the wire.
    await waitFor(async () => gate.held.length >= 1, 60_000, 'a broadcast held at the gate');
    const journaled = await attemptsOf(ids);
    expect(journaled).toHaveLength(10);
    expect(journaled.map((a) => Number(a.nonce))).toEqual(
      ids.map((_, index) => startNonce + index),
    );
    expect(journaled.every((a) => a.status === 'Signed')).toBe(true);
    expect(await statusesOf(ids)).toEqual(ids.map(() => 'Processing'));

    // The worker dies there; the next one (straight to the node) finds the stored attempts.
    await dying.worker.close();
    workers.splice(workers.indexOf(dying.worker), 1);
    workers.push(await startWorker());
    await waitFor(
      async () => (await statusesOf(ids)).every((status) => status === 'Completed'),
      120_000,
      'every payout Completed',
    );

    const after = await attemptsOf(ids);
    // No new signature: the very bytes journaled before the crash were sent, once each.
    expect(after.map((a) => [a.payout_id, a.attempt_number, a.tx_hash])).toEqual(
      journaled.map((a) => [a.payout_id, a.attempt_number, a.tx_hash]),
    );
    const sent = (await transfersFrom(devnet, 'USDT', HOT_WALLET)).slice(before);
    expect(sent.map((t) => t.txHash).sort()).toEqual(journaled.map((a) => a.tx_hash).sort());
    expect(await devnet.provider.getTransactionCount(HOT_WALLET, 'latest')).toBe(startNonce + 10);
  });
});
