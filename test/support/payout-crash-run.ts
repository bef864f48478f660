import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { parseUnits, Wallet } from 'ethers';
import { formatAmount } from '@app/common';
import { buildApp } from './built-apps';
import { useChainEnvironment } from './chain-test-env';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from './devnet';
import { LaggingBalancer } from './lagging-balancer';
import { creditBalance } from './ledger-credit';
import { parkEarlierPayouts, transfersFrom, writeHotWalletsFile } from './payout-chain';
import { TestApi } from './test-app';
import { waitFor } from './wait-for';
import { WorkerProcess } from './worker-process';

const PAYOUTS = 200;
/** Kills that must have struck a run in progress (up to KILLS are tried). */
const MIN_KILLS = 3;
const KILLS = 10;
const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;

export interface CrashRunOptions {
  /**
   * The worker's RPC: the node itself, or a load balancer over it and a backend `lagBlocks`
   * behind, answering each call from one of them at random (DESIGN.md section 4).
   */
  rpc: 'direct' | { lagBlocks: number };
  /** Once, mid-run: the next block's base fee jumps far above every bid in flight. */
  baseFeeSpike: boolean;
}

/*
 * The worker as a real process, SIGKILLed at random moments while it sends 200 payouts on a chain
 * that mines a block a second. Whatever line it dies on, every payout must end once, with exactly
 * one transfer on chain per Completed payout and the books equal to the chain.
 */
export function describePayoutCrashRun(title: string, options: CrashRunOptions): void {
  describe(title, () => {
    let devnet: Devnet;
    let balancer: LaggingBalancer | undefined;
    let api: TestApi;
    let environment: ReturnType<typeof useChainEnvironment>;
    const worker = new WorkerProcess('payouts-crash');

    beforeAll(async () => {
      // The real worker process runs the compiled code, as in production.
      await buildApp('worker');
      devnet = await startDevnet({ blockTime: 1 });
      if (options.rpc !== 'direct') {
        // On a real chain the token is older than any backend's lag: a backend behind a chain this
        // young has no token yet, and its gas estimates are those of a call to an empty account.
        await devnet.provider.send('anvil_mine', ['0x' + (4 * options.rpc.lagBlocks).toString(16)]);
        balancer = await LaggingBalancer.start(devnet.rpcUrl, {
          lagBlocks: options.rpc.lagBlocks,
          mode: 'random',
          seed: Date.now() % 100_000,
        });
      }
      const rpcUrls = [balancer?.url ?? devnet.rpcUrl];
      environment = useChainEnvironment(devnet.networksFileJson({ rpcUrls, confirmations: 1 }), {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        // Stuck bids are replaced soon: the base fee spike must force replacements in the run.
        PAYOUT_REPLACE_AFTER_MS: '3000',
        PAYOUT_NETWORK_FEES: 'ETHEREUM=0.1',
      });
      api = await TestApi.start();
      // Each suite has its own chain: a payout left in flight by another suite would carry another
      // chain's nonces into this one.
      expect(await api.count('payouts', `network = 'ETHEREUM' AND status = 'Processing'`)).toBe(0);
      await parkEarlierPayouts(api.dataSource);
    });

    afterAll(async () => {
      await worker.stop('SIGKILL');
      await api?.close();
      await balancer?.stop();
      await devnet?.stop();
      environment?.restore();
      worker.removeLog();
    });

    /** Waits for the running worker to make progress; says why when it does not. */
    async function waitForProgress(progress: () => Promise<number>, before: number): Promise<void> {
      // A worker that died on its own (not killed by this test) will never make progress.
      await worker.waitWhileRunning(
        async () => (await progress()) > before,
        60_000,
        'the worker at work',
        diagnostics,
      );
    }

    async function diagnostics(): Promise<string> {
      const waiting = await api.dataSource.query(
        `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction,
              left(query, 160) AS query
         FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (state = 'idle in transaction' OR wait_event_type = 'Lock')`,
      );
      const payouts = await api.dataSource.query(
        `SELECT network, status, count(*)::int AS count FROM payouts GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      const log = worker.lastLines();
      return [
        `sessions waiting or idle in a transaction: ${JSON.stringify(waiting)}`,
        `payouts: ${JSON.stringify(payouts)}`,
        `last lines of the workers' log (${worker.logFile}):\n${log}`,
      ].join('\n');
    }

    it('sends each of 200 payouts exactly once across 10 SIGKILLs', async () => {
      const merchant = await api.createMerchant();
      await creditBalance(api.dataSource, {
        merchantId: merchant.id,
        network: 'ETHEREUM',
        currency: 'USDT',
        amount: '10000',
      });
      const recipients = Array.from({ length: PAYOUTS }, () => Wallet.createRandom().address);
      const amounts = recipients.map((_, i) => `${1 + (i % 7)}.${String(i).padStart(3, '0')}`);

      worker.start();
      const ids: string[] = [];
      for (let i = 0; i < PAYOUTS; i += 20) {
        const batch = await Promise.all(
          recipients
            .slice(i, i + 20)
            .map((to, j) =>
              api.post(
                '/v1/payouts',
                merchant,
                { amount: amounts[i + j], currency: 'USDT', network: 'ETHEREUM', to_address: to },
                { 'Idempotency-Key': randomUUID() },
              ),
            ),
        );
        for (const response of batch) {
          expect(response.status).toBe(201);
          ids.push(response.body.id);
        }
      }

      const finished = () =>
        api.count('payouts', `merchant_id = $1 AND status IN ('Completed', 'Failed')`, [
          merchant.id,
        ]);
      // Progress: attempts journaled plus payouts finished. A kill is only worth something once the
      // new worker is at work, so each waits for progress, then strikes a random moment later
      // (claiming, signing, broadcasting, tracking or completing).
      const progress = async () =>
        (await finished()) +
        (await api.count(
          'payout_attempts a JOIN payouts p ON p.id = a.payout_id',
          'p.merchant_id = $1',
          [merchant.id],
        ));
      // Batch claims can finish all 200 before the tenth kill on a quiet machine (CI timed out
      // waiting for progress that could not come): once every payout is final, killing stops.
      const allFinal = async () => (await finished()) === PAYOUTS;
      const progressOrDone = async () =>
        (await allFinal()) ? Number.MAX_SAFE_INTEGER : await progress();
      const finishedAtKill: number[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        await waitForProgress(progressOrDone, await progress());
        if (await allFinal()) break;
        if (options.baseFeeSpike && kill === 2) {
          await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [
            '0x' + parseUnits('60', 'gwei').toString(16),
          ]);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
        const finishedNow = await finished();
        if (finishedNow === PAYOUTS) break;
        finishedAtKill.push(finishedNow);
        await worker.stop('SIGKILL');
        worker.start();
      }
      // Every kill hit a run in progress, not a finished one, and there were several.
      expect(finishedAtKill.length).toBeGreaterThanOrEqual(MIN_KILLS);
      expect(finishedAtKill.filter((count) => count < PAYOUTS)).toHaveLength(finishedAtKill.length);
      await waitFor(async () => (await finished()) === PAYOUTS, 180_000, 'every payout final');

      const payouts: Array<{
        id: string;
        status: string;
        to_address: string;
        net_amount: string;
        tx_hash: string;
      }> = await api.dataSource.query(
        `SELECT id, status, to_address, net_amount, tx_hash FROM payouts WHERE merchant_id = $1`,
        [merchant.id],
      );
      // Shown with their reasons when a payout did not complete.
      const unfinished = await api.dataSource.query(
        `SELECT id, status, error_reason, tx_hash FROM payouts
          WHERE merchant_id = $1 AND status <> 'Completed'`,
        [merchant.id],
      );
      expect(unfinished).toEqual([]);
      const transfers = await transfersFrom(devnet, 'USDT', HOT_WALLET);
      for (const payout of payouts) {
        const sent = transfers.filter((t) => t.to === payout.to_address);
        expect(sent).toEqual([
          {
            to: payout.to_address,
            amount: parseUnits(formatAmount(payout.net_amount), 6),
            txHash: payout.tx_hash,
          },
        ]);
      }
      expect(transfers).toHaveLength(PAYOUTS);
      const [{ held, available }] = await api.dataSource.query(
        `SELECT -COALESCE(sum(balance) FILTER (WHERE kind = 'merchant_held'), 0) AS held,
              -COALESCE(sum(balance) FILTER (WHERE kind = 'merchant'), 0) AS available
         FROM ledger_balances WHERE merchant_id = $1`,
        [merchant.id],
      );
      expect(formatAmount(held)).toBe('0');
      const [{ total }] = await api.dataSource.query(
        `SELECT sum(amount) AS total FROM payouts WHERE merchant_id = $1`,
        [merchant.id],
      );
      expect(formatAmount(available)).toBe(formatAmount(new Decimal('10000').minus(total)));
      if (options.baseFeeSpike) {
        // The spike left bids below the base fee: some payouts were replaced, and still paid once.
        expect(
          await api.count(
            'payout_attempts a JOIN payouts p ON p.id = a.payout_id',
            'p.merchant_id = $1 AND a.attempt_number > 1',
            [merchant.id],
          ),
        ).toBeGreaterThan(0);
      }
    }, 400_000);
  });
}
