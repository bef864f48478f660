import type { INestApplicationContext } from '@nestjs/common';
import { DepositWatcherService } from '@app/deposits';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, startDevnet } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { BalancerMode, LaggingBalancer } from '../support/lagging-balancer';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

const CONFIRMATIONS = 2;
// The loop's backoff after failures doubles from the poll interval (250 ms on a devnet) up to
// 10 s; a wait longer than this is a backoff after several failed ticks in a row.
const LONGEST_WAIT_MS = 3_000;

/**
 * Every public RPC URL is a load balancer over nodes at different heights (DESIGN.md section 4).
 * Behind one whose every other answer comes from a backend 6 blocks behind, a block the watcher
 * needs is often null: that is "not yet", never a reason to fail the whole tick and back off.
 * Payments must be detected and credited promptly, with the worker's own loop.
 */
describe('Deposit watcher behind a load-balanced RPC with a lagging backend (anvil, worker)', () => {
  let devnet: Devnet;
  let balancer: LaggingBalancer;
  let api: TestApi;
  let merchant: TestMerchant;
  let worker: INestApplicationContext | undefined;
  let environment: ReturnType<typeof useChainEnvironment>;

  beforeAll(async () => {
    // A block every second, like a real chain: the lagging backend gets each block 6 s late.
    devnet = await startDevnet({ blockTime: 1 });
    // Tokens deployed long before, as on a real chain: the lagging backend has their code too (a
    // contract without code at its height holds the network, an error of its own).
    await devnet.mine(20);
    balancer = await LaggingBalancer.start(devnet.rpcUrl, { lagBlocks: 6, mode: 'fresh' });
    environment = useChainEnvironment(
      devnet.networksFileJson({
        rpcUrls: [balancer.url],
        // Every read through the balancer: no subscription to the node itself.
        wsUrl: undefined,
        confirmations: CONFIRMATIONS,
      }),
      { WATCH_NETWORKS: 'ETHEREUM' },
    );
    api = await TestApi.start();
    await forgetChain(api.app, 'ETHEREUM');
    merchant = await api.createMerchant();
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  afterAll(async () => {
    await api?.close();
    await balancer?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  const isPaid = async (id: string) => {
    const rows: unknown[] = await api.dataSource.query(
      `SELECT 1 FROM checkout_sessions WHERE id = $1 AND status = 'Paid'`,
      [id],
    );
    return rows.length === 1;
  };

  /** The worker's watcher, timing the waits of its loop between ticks. */
  const startWatching = async () => {
    worker = await startWorker();
    const watcher = worker.get(DepositWatcherService);
    const waits: number[] = [];
    let endedAt: number | undefined;
    const scan = watcher.scan.bind(watcher);
    jest.spyOn(watcher, 'scan').mockImplementation(async (...args) => {
      if (endedAt !== undefined) waits.push(Date.now() - endedAt);
      try {
        return await scan(...args);
      } finally {
        endedAt = Date.now();
      }
    });
    return waits;
  };

  it.each<BalancerMode>(['alternate', 'random'])(
    'detects and credits payments with answers from both backends (%s)',
    async (mode) => {
      balancer.mode = mode;
      const answeredBefore = { ...balancer.answered };
      const waits = await startWatching();
      const sessions = [
        await createSession(api, merchant, { pricing_amount: '3' }),
        await createSession(api, merchant, { pricing_amount: '4' }),
      ];
      for (const [index, session] of sessions.entries()) {
        await devnet.transfer('USDT', session.pay_address, String(index + 3));
      }
      for (const session of sessions) {
        await waitFor(() => isPaid(session.id), 60_000, `session ${session.id} Paid (${mode})`);
      }
      expect(balancer.answered.lagging).toBeGreaterThan(answeredBefore.lagging);
      expect(Math.max(0, ...waits)).toBeLessThan(LONGEST_WAIT_MS);
    },
    120_000,
  );
});
