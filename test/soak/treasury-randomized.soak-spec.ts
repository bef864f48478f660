import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { parseEther, Wallet } from 'ethers';
import { TESTNET_NETWORKS } from '@app/chains';
import { FundingBooks } from '@app/treasury';
import { CliModule } from '../../apps/cli/src/cli.module';
import { buildApp } from '../support/built-apps';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { CliProcess } from '../support/cli-process';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { FakeTronNode } from '../support/fake-tron-node';
import { startPayoutsOnNewChain } from '../support/payout-chain';
import { postSessionRefund } from '../support/refunds-api';
import { SeededRandom } from '../support/seeded-random';
import { devnetSweeper, startSweepsOnNewChain } from '../support/sweep-env';
import { TestApi, TestMerchant } from '../support/test-app';
import {
  startTronSweepsOnNewChain,
  tronAddressOf,
  tronTestKey,
  TRX,
} from '../support/tron-sweep-env';
import { waitFor } from '../support/wait-for';
import {
  baseFeeSpike,
  payInOneBlock,
  PooledTransaction,
  revertingBlock,
  standStill,
} from './evm-faults';
import { checkEvmBooks, EvmSoakFacts } from './evm-soak-checks';
import { soakEnvironment } from './soak-environment';
import { sendTrx, stakeTrx } from './tron-chain';
import { checkTronBooks } from './tron-soak-checks';
import { WorkerProcess } from './worker-process';

const SESSIONS = Number(process.env.TREASURY_SESSIONS ?? 200);
const WAVES = 5;
const PAYOUTS = Math.round(SESSIONS * 0.3);
const CURRENCIES = ['USDT', 'USDC'] as const;
type Currency = (typeof CURRENCIES)[number];
/** What strikes the chain in each wave, once the worker's transactions wait in the pool. */
const FAULTS: Array<'revert' | 'spike' | null> = [null, 'revert', 'spike', 'revert', null];
const TRON_DEPOSITS = Number(process.env.TREASURY_TRON_DEPOSITS ?? 24);
const TRON_PAYOUTS = 4;
const TRON_USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const STAKING_KEY = tronTestKey('treasury randomized staking account');
const TRON_HOT_KEY = tronTestKey('treasury randomized tron hot wallet');
const OPERATOR_KEY = tronTestKey('treasury randomized tron operator');
const TRON_PAYER = tronAddressOf(tronTestKey('treasury randomized tron payer'));
const seeded = SeededRandom.fromEnvironment('TREASURY_SEED');
// One generator per chain: the two halves run at once, and each replays its own choices.
const random = new SeededRandom(seeded.seed);
const tronRandom = new SeededRandom(seeded.seed ^ 0x5bd1e995);

interface PlannedSession {
  id: string;
  address: string;
  currency: Currency;
  price: string;
  /** Transfers the customer sends, in order: under then the rest, over, or twice. */
  kind: 'exact' | 'under' | 'over' | 'twice';
}

/*
 * Issue 24's "Done when": everything at once, with one built worker as a real process for both
 * chains. On anvil (prague, a block a second), in five waves: sessions paid exactly, under (then
 * topped up), over (the excess refunded) and twice (an unmatched transfer, some refunded),
 * payouts, refunds, sweeps all along. Each wave stops the chain on its payments' block until the
 * worker's sweeps and payouts wait in the pool, SIGKILLs the worker there (with a random number
 * of them sent, TRON steps mid-way too) and, in three waves, shapes the next block under them
 * while no worker runs: the tokens and the sweep delegate revert (twice), or the base fee jumps
 * and strands them until the next worker outbids them. On the fake TRON node, mined every
 * 300 ms: deposits swept (activation, energy lent and taken back), payouts and refunds.
 * Afterwards `treasury:reconcile` shows 0 for every (network, currency), booked fees equal the
 * receipts, every sweep, payout and refund moved once. TREASURY_SEED=n replays a run's choices
 * (the chains' timing still varies); TREASURY_PROGRESS=1 says what a long wait waits on.
 */
describe(`Treasury randomized on anvil and the fake TRON node (seed ${seeded.seed})`, () => {
  const hot = Wallet.createRandom();
  // Not one of anvil's funded accounts: its ETH is what the booked funding gave it.
  const sweeper = devnetSweeper(17);
  const treasury = Wallet.createRandom().address;
  const staking = tronAddressOf(STAKING_KEY);
  const tronHot = tronAddressOf(TRON_HOT_KEY);
  let devnet: Devnet;
  let tron: FakeTronNode;
  let api: TestApi;
  let operator: INestApplicationContext;
  let cli: Promise<CliProcess>;
  let evmMerchant: TestMerchant;
  let tronMerchant: TestMerchant;
  let delegate: string;
  let environment: ReturnType<typeof useChainEnvironment>;
  let miner: NodeJS.Timeout | undefined;
  let runStart: Date;
  let firstBlock: number;
  const logDir = mkdtempSync(join(tmpdir(), 'treasury-randomized-'));
  const worker = new WorkerProcess(process.env.TEST_WORKER_LOG ?? join(logDir, 'workers.log'));
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const phase = (what: string) => process.stdout.write(`  [${seconds()} s] ${what}\n`);

  beforeAll(async () => {
    process.stdout.write(`treasury randomized: TREASURY_SEED=${seeded.seed}\n`);
    // The CLI (a transpile without type checks) builds while the worker builds (only when its
    // sources changed) and the run goes on: it is needed only for the closing reconciliation.
    cli = CliProcess.build('treasury-randomized');
    cli.catch(() => undefined);
    await buildApp('worker');
    phase('worker built');
    devnet = await startDevnet({ blockTime: 1 });
    firstBlock = await devnet.head();
    // A solidified block 6 below the head (19 on mainnet): the same proofs, sooner.
    tron = new FakeTronNode({ solidLag: 6 });
    const tronUrl = await tron.start();
    tron.mineEmpty(5);
    tron.setTrxBalance(tronAddressOf(OPERATOR_KEY), 2_000_000n * TRX);
    const setup = await soakEnvironment({
      devnet,
      tronUrl,
      hot,
      sweeper,
      treasury,
      tronHotKey: TRON_HOT_KEY,
      stakingKey: STAKING_KEY,
    });
    delegate = setup.delegate;
    environment = useChainEnvironment(setup.networksFileJson, setup.variables);
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    await forgetChain(api.app, 'TRON');
    await startSweepsOnNewChain(api.dataSource);
    await startTronSweepsOnNewChain(api.dataSource, tronHot);
    evmMerchant = await api.createMerchant({ name: 'Treasury randomized EVM' });
    tronMerchant = await api.createMerchant({ name: 'Treasury randomized TRON' });
    // The operator's tools in this process (the CLI's module): booking funding needs no process.
    operator = await NestFactory.createApplicationContext(CliModule, { logger: false });
    await operator.init();
    runStart = (await api.dataSource.query(`SELECT now() AS now`))[0].now as Date;
    phase('chains and apps started');
  }, 600_000);

  afterAll(async () => {
    if (miner) clearInterval(miner);
    await worker.stop();
    await operator?.close();
    await api?.close();
    await devnet?.stop();
    await tron?.stop();
    (await cli?.catch(() => undefined))?.remove();
    environment?.restore();
    rmSync(logDir, { recursive: true, force: true });
  });

  const count = (table: string, where: string, parameters: unknown[] = []) =>
    api.count(table, where, parameters);

  async function state(): Promise<string> {
    const rows = await api.dataSource.query(
      `SELECT 'sweep' AS what, network, status, count(*)::int FROM sweeps WHERE created_at >= $1 GROUP BY 2, 3
       UNION ALL SELECT 'payout', network, status, count(*)::int FROM payouts WHERE merchant_id = ANY($2) GROUP BY 2, 3
       UNION ALL SELECT 'refund', network, status, count(*)::int FROM refunds WHERE merchant_id = ANY($2) GROUP BY 2, 3
       UNION ALL SELECT 'session', network, status, count(*)::int FROM checkout_sessions
                  WHERE merchant_id = ANY($2) GROUP BY 2, 3`,
      [runStart, [evmMerchant.id, tronMerchant.id]],
    );
    return `${JSON.stringify(rows)}\nlast lines of the workers' log:\n${worker.tail()}`;
  }

  async function waitUntil(check: () => Promise<boolean>, what: string, ms = 120_000) {
    // A long wait says now and then what it waits on (TREASURY_PROGRESS=1).
    const progress = process.env.TREASURY_PROGRESS
      ? setInterval(() => void progressReport(what).catch(() => undefined), 15_000)
      : undefined;
    try {
      await waitFor(check, ms, what);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await state()}`);
    } finally {
      clearInterval(progress);
    }
  }

  async function progressReport(what: string): Promise<void> {
    const [counts] = await api.dataSource.query(
      `SELECT
         (SELECT json_object_agg(network, n) FROM (SELECT network, count(*) AS n FROM sweep_addresses
            WHERE pending_since IS NOT NULL GROUP BY network) x) AS pending_addresses,
         (SELECT json_object_agg(k, n) FROM (SELECT network || ' ' || status AS k, count(*) AS n
            FROM sweeps WHERE created_at >= $1 GROUP BY 1) x) AS sweeps,
         (SELECT json_object_agg(k, n) FROM (SELECT network || ' ' || status || ' ' || coalesce(pending_reason, '') AS k,
            count(*) AS n FROM payouts WHERE merchant_id = ANY($2) GROUP BY 1) x) AS payouts,
         (SELECT json_object_agg(k, n) FROM (SELECT network || ' ' || status AS k, count(*) AS n
            FROM refunds WHERE merchant_id = ANY($2) GROUP BY 1) x) AS refunds,
         (SELECT json_object_agg(k, n) FROM (SELECT network || ' ' || status AS k, count(*) AS n
            FROM checkout_sessions WHERE merchant_id = ANY($2) GROUP BY 1) x) AS sessions`,
      [runStart, [evmMerchant.id, tronMerchant.id]],
    );
    // This process serves the API, the fake TRON node and the test: a busy loop slows them all.
    const lag = `event loop p50 ${Math.round(loopDelay.percentile(50) / 1e6)} ms, max ${Math.round(loopDelay.max / 1e6)} ms, TRON requests ${tron.requests.length}`;
    loopDelay.reset();
    phase(`waiting for ${what} (${lag}): ${JSON.stringify(counts)}`);
  }

  /**
   * The operator funds the wallets with ordinary transactions and books each once the worker
   * registered the wallet (booking takes only what moves into the service's wallets). The TRON
   * staking account stakes most of its TRX for the energy it lends: every sweep lends ~7,100 TRX
   * of stake, and the energy a sweep used comes back only after 24 h of chain time.
   */
  async function fund(): Promise<void> {
    const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    const evm: string[] = [];
    for (const to of [hot.address, sweeper.address])
      evm.push((await deployer.sendTransaction({ to, value: parseEther('20') })).hash);
    for (const currency of CURRENCIES)
      evm.push((await devnet.transfer(currency, hot.address, '3000')).txHash);
    const tronTxids = [
      await sendTrx(tron, OPERATOR_KEY, staking, 1_100_000n * TRX),
      await sendTrx(tron, OPERATOR_KEY, tronHot, 1_000n * TRX),
    ];
    tronTxids.push(await stakeTrx(tron, STAKING_KEY, 1_000_000n * TRX));
    await devnet.provider.waitForTransaction(evm[1]);
    await waitUntil(
      async () =>
        (await count('hot_wallets', `network IN ('ETHEREUM', 'TRON')`)) === 2 &&
        (await count(
          'treasury_wallets',
          `(network = 'ETHEREUM' AND lower(address) = lower($1)) OR (network = 'TRON' AND address = $2)`,
          [sweeper.address, staking],
        )) === 2,
      'the worker registered the hot wallets, the sweeper and the staking account',
      90_000,
    );
    const books = operator.get(FundingBooks);
    for (const hash of evm) await books.book('ETHEREUM', hash);
    for (const txid of tronTxids) await books.book('TRON', txid);
  }

  // ---- ETHEREUM: sessions in waves, payouts, refunds, faults and kills ----

  async function createSessions(): Promise<PlannedSession[]> {
    const planned = Array.from({ length: SESSIONS }, () => {
      const roll = random.next();
      const kind: PlannedSession['kind'] =
        roll < 0.6 ? 'exact' : roll < 0.75 ? 'under' : roll < 0.92 ? 'over' : 'twice';
      return {
        currency: random.pick(CURRENCIES),
        price: `${random.int(3, 40)}.${String(random.int(0, 99)).padStart(2, '0')}`,
        kind,
      };
    });
    const sessions: PlannedSession[] = [];
    for (let i = 0; i < planned.length; i += 20) {
      sessions.push(
        ...(await Promise.all(
          planned.slice(i, i + 20).map(async (plan) => {
            const { body } = await api
              .post('/v1/checkout/sessions', evmMerchant, {
                pricing_amount: plan.price,
                pricing_currency: 'USD',
                currency: plan.currency,
                network: 'ETHEREUM',
              })
              .expect(201);
            return { ...plan, id: body.id as string, address: body.pay_address as string };
          }),
        )),
      );
    }
    return sessions;
  }

  /** The first transfer of a session; what completes an underpayment and the second payments later. */
  const firstPayment = (session: PlannedSession) => {
    const price = new Decimal(session.price);
    if (session.kind === 'under') return price.mul('0.6').toDecimalPlaces(2).toFixed();
    if (session.kind === 'over') return price.plus(random.int(3, 9)).toFixed();
    return price.toFixed();
  };
  const followUp = (session: PlannedSession): string | null => {
    const price = new Decimal(session.price);
    if (session.kind === 'under') return price.minus(price.mul('0.6').toDecimalPlaces(2)).toFixed();
    if (session.kind === 'twice') return `${random.int(3, 12)}`;
    return null;
  };
  const firstPayments = (sessions: PlannedSession[]) =>
    sessions.map((session) => ({
      currency: session.currency,
      to: session.address,
      amount: firstPayment(session),
    }));
  const followUps = (sessions: PlannedSession[]) =>
    sessions.flatMap((session) => {
      const amount = followUp(session);
      return amount ? [{ currency: session.currency, to: session.address, amount }] : [];
    });

  const available = async (merchant: TestMerchant, currency: string): Promise<Decimal> => {
    const { body } = await api.get('/v1/balances', merchant).expect(200);
    const row = (body as Array<{ currency: string; network?: string; available: string }>).find(
      (balance) => balance.currency === currency,
    );
    return new Decimal(row?.available ?? '0');
  };

  async function createPayouts(howMany: number): Promise<number> {
    let created = 0;
    const left = new Map<Currency, Decimal>();
    for (const currency of CURRENCIES) left.set(currency, await available(evmMerchant, currency));
    const requests: Array<Promise<unknown>> = [];
    for (let i = 0; i < howMany; i++) {
      const currency = random.pick(CURRENCIES);
      const amount = new Decimal(random.int(2, 15));
      if (left.get(currency)!.lessThan(amount.plus(5))) continue;
      left.set(currency, left.get(currency)!.minus(amount));
      requests.push(
        api
          .post(
            '/v1/payouts',
            evmMerchant,
            {
              amount: amount.toFixed(),
              currency,
              network: 'ETHEREUM',
              to_address: Wallet.createRandom().address,
            },
            { 'Idempotency-Key': randomUUID() },
          )
          .expect(201),
      );
      created++;
    }
    await Promise.all(requests);
    return created;
  }

  /** Refunds of overpaid sessions' excess and, now and then, of a second payment. */
  async function createRefunds(sessions: PlannedSession[], howMany: number): Promise<number> {
    const overpaid = sessions.filter((session) => session.kind === 'over').slice(0, howMany);
    await Promise.all(
      overpaid.map((session) =>
        postSessionRefund(api, evmMerchant, session.id, {
          to_address: Wallet.createRandom().address,
          reason: 'Overpaid',
        }).expect(201),
      ),
    );
    const unmatched: Array<{ id: string }> = await api.dataSource.query(
      `SELECT u.id FROM unmatched_transfers u JOIN checkout_sessions c ON lower(c.pay_address) = lower(u.to_address)
        WHERE c.merchant_id = $1 AND u.status <> 'reverted'
          AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.unmatched_transfer_id = u.id)
        ORDER BY u.id LIMIT 2`,
      [evmMerchant.id],
    );
    for (const transfer of unmatched) {
      await api
        .post(
          `/v1/unmatched-transfers/${transfer.id}/refunds`,
          evmMerchant,
          { to_address: Wallet.createRandom().address },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201);
    }
    return overpaid.length + unmatched.length;
  }

  /** Payouts and sweeps of both chains that a worker has signed and not finished. */
  async function inFlight(): Promise<Array<{ kind: string; id: string }>> {
    return api.dataSource.query(
      `SELECT 'payout' AS kind, id FROM payouts WHERE status = 'Processing' AND merchant_id = ANY($1)
       UNION ALL SELECT 'sweep', id FROM sweeps WHERE status = 'Processing' AND created_at >= $2`,
      [[evmMerchant.id, tronMerchant.id], runStart],
    );
  }

  const strikes: Array<Array<{ kind: string; id: string }>> = [];

  /**
   * SIGKILL with our transactions waiting in the pool of a chain that stands still: read after
   * the kill, what is still Processing is what the dead worker left mid-way (nothing else moves
   * it), and the next worker must finish it, whatever the chain did meanwhile.
   */
  async function killInFlight(): Promise<void> {
    await worker.kill();
    const struck = await inFlight();
    if (struck.length === 0) throw new Error('the kill found nothing in flight');
    strikes.push(struck);
  }

  const pooledBy = {
    revert: [] as PooledTransaction[],
    spike: [] as PooledTransaction[],
  };

  async function evmRun(sessions: PlannedSession[]) {
    const waveSize = Math.ceil(SESSIONS / WAVES);
    let payouts = 0;
    let refunds = 0;
    for (let wave = 0; wave < WAVES; wave++) {
      const waveSessions = sessions.slice(wave * waveSize, (wave + 1) * waveSize);
      const previous = wave > 0 ? sessions.slice((wave - 1) * waveSize, wave * waveSize) : [];
      if (wave > 0) {
        const settled = previous.filter((s) => s.kind !== 'under').map((s) => s.id);
        await waitUntil(
          async () =>
            (await count('checkout_sessions', `status = 'Paid' AND id = ANY($1::text[])`, [
              settled,
            ])) === settled.length,
          `wave ${wave - 1} paid`,
        );
      }
      // This wave's payments and the rest of the previous wave's, in one block.
      const payments = [...firstPayments(waveSessions), ...followUps(previous)];
      const payoutsNow = wave > 0 ? Math.ceil(PAYOUTS / (WAVES - 1)) : 0;
      const fault = FAULTS[wave];
      // A worker still booting would die before it did anything: each kill finds one up.
      await worker.ready();
      // The chain stands still on the payments' block while the worker sweeps them and sends the
      // payouts; it dies with a random number of them in the pool, and the fault (if any) shapes
      // the next block under them while no worker runs.
      const senders = wave > 0 ? [hot.address, sweeper.address] : [sweeper.address];
      const caught = await standStill(devnet, senders, `wave ${wave}`, {
        before: async () => {
          await payInOneBlock(devnet, payments);
          payouts += await createPayouts(payoutsNow);
        },
        atLeast: senders.length + random.int(0, wave > 0 ? 2 : 1),
        whilePooled: killInFlight,
        strike:
          fault === 'revert'
            ? revertingBlock(devnet, [
                devnet.tokens.USDT.contract,
                devnet.tokens.USDC.contract,
                delegate,
              ])
            : fault === 'spike'
              ? baseFeeSpike(devnet, '80')
              : undefined,
      });
      if (fault) pooledBy[fault].push(...caught);
      worker.start();
      if (wave > 0) refunds += await createRefunds(previous, Math.ceil((SESSIONS * 0.1) / WAVES));
      phase(`wave ${wave}${fault ? ` (${fault})` : ''}: ${payouts} payouts, ${refunds} refunds`);
    }
    const last = sessions.slice((WAVES - 1) * waveSize);
    await waitUntil(
      async () =>
        (await count('checkout_sessions', `status = 'Paid' AND id = ANY($1::text[])`, [
          last.filter((s) => s.kind !== 'under').map((s) => s.id),
        ])) === last.filter((s) => s.kind !== 'under').length,
      'the last wave paid',
    );
    const rest = followUps(last);
    if (rest.length) await payInOneBlock(devnet, rest);
    refunds += await createRefunds(last, 2);

    // Drained: every session paid, every payout, refund and sweep ended, every address empty.
    const empty = async () => {
      const balances = await Promise.all(
        sessions.map((session) => devnet.balanceOf(session.currency, session.address)),
      );
      return balances.every((balance) => balance === 0n);
    };
    await waitUntil(
      async () =>
        (await count('checkout_sessions', `merchant_id = $1 AND status = 'Paid'`, [
          evmMerchant.id,
        ])) === SESSIONS &&
        (await count('payouts', `merchant_id = $1 AND status IN ('Pending', 'Processing')`, [
          evmMerchant.id,
        ])) === 0 &&
        (await count(
          'refunds',
          `merchant_id = $1 AND status NOT IN ('Completed', 'Failed', 'Canceled')`,
          [evmMerchant.id],
        )) === 0 &&
        (await count(
          'sweeps',
          `network = 'ETHEREUM' AND created_at >= $1 AND status = 'Processing'`,
          [runStart],
        )) === 0 &&
        (await empty()),
      'every ETHEREUM session paid, payout, refund and sweep ended, every address swept',
      180_000,
    );
    phase('ETHEREUM drained');
    return { sessions, payouts, refunds };
  }

  // ---- TRON: deposits swept, payouts and refunds from the swept tokens ----

  type TronSession = { id: string; address: string; paid: bigint; over: boolean };

  function createTronSessions(): Promise<TronSession[]> {
    return Promise.all(
      Array.from({ length: TRON_DEPOSITS }, async () => {
        const price = tronRandom.int(5, 40);
        // A refund must be above twice the network fee (TRON=1): the excess is 3 or more.
        const excess = tronRandom.chance(0.25) ? tronRandom.int(3, 8) : 0;
        const { body } = await api
          .post('/v1/checkout/sessions', tronMerchant, {
            pricing_amount: String(price),
            pricing_currency: 'USD',
            currency: 'USDT',
            network: 'TRON',
          })
          .expect(201);
        return {
          id: body.id as string,
          address: body.pay_address as string,
          paid: BigInt(price + excess) * 1_000_000n,
          over: excess > 0,
        };
      }),
    );
  }

  async function tronRun(sessions: TronSession[]) {
    // Four waves of deposits a few blocks apart, each wave's transfers in one block.
    for (let i = 0; i < sessions.length; i += Math.ceil(TRON_DEPOSITS / 4)) {
      const wave = sessions.slice(i, i + Math.ceil(TRON_DEPOSITS / 4));
      tron.addTransferBlock(
        wave.map((session) => ({
          contract: TRON_USDT,
          from: TRON_PAYER,
          to: session.address,
          amount: session.paid,
        })),
      );
      // addTransferBlock leaves balances alone: the token's storage as the transfers left it.
      for (const session of wave) tron.setTokenBalance(TRON_USDT, session.address, session.paid);
      const head = tron.headBlockNumber;
      const pause = tronRandom.int(5, 20);
      await waitFor(async () => tron.headBlockNumber >= head + pause, 60_000, 'TRON blocks');
    }
    await waitUntil(
      async () =>
        (await count('checkout_sessions', `merchant_id = $1 AND status = 'Paid'`, [
          tronMerchant.id,
        ])) === TRON_DEPOSITS,
      'every TRON session paid',
    );
    phase('TRON sessions paid');
    const refunds = sessions.filter((session) => session.over).slice(0, 3);
    await Promise.all(
      refunds.map((session, i) =>
        postSessionRefund(api, tronMerchant, session.id, {
          to_address: tronAddressOf(tronTestKey(`treasury randomized refund ${i} ${seeded.seed}`)),
          reason: 'Overpaid',
        }).expect(201),
      ),
    );
    const payouts: string[] = [];
    for (let i = 0; i < TRON_PAYOUTS; i++) {
      const { body } = await api
        .post(
          '/v1/payouts',
          tronMerchant,
          {
            amount: String(tronRandom.int(3, 10)),
            currency: 'USDT',
            network: 'TRON',
            to_address: tronAddressOf(tronTestKey(`treasury randomized payee ${i} ${seeded.seed}`)),
          },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201);
      payouts.push(body.id);
    }
    await waitUntil(
      async () =>
        sessions.every((session) => tron.tokenBalance(TRON_USDT, session.address) === 0n) &&
        (await count('sweeps', `network = 'TRON' AND created_at >= $1 AND status = 'Processing'`, [
          runStart,
        ])) === 0 &&
        (await count('payouts', `merchant_id = $1 AND status IN ('Pending', 'Processing')`, [
          tronMerchant.id,
        ])) === 0 &&
        (await count(
          'refunds',
          `merchant_id = $1 AND status NOT IN ('Completed', 'Failed', 'Canceled')`,
          [tronMerchant.id],
        )) === 0,
      'every TRON deposit swept, every TRON payout and refund ended',
      240_000,
    );
    phase('TRON drained');
    return { sessions, payouts: payouts.length, refunds: refunds.length };
  }

  /** `treasury:reconcile` of every network, as the operator runs it (the built CLI). */
  async function reconcileWithCli() {
    return (await cli).run('treasury:reconcile');
  }

  it(`keeps the books equal to both chains through ${SESSIONS} + ${TRON_DEPOSITS} sessions, payouts, refunds, sweeps, faults and ${WAVES} SIGKILLs`, async () => {
    worker.start();
    // Sessions take pay addresses (derived on the spot while the worker's pool is empty) while
    // the worker boots and the funding waits for it.
    const [evmSessions, tronSessions] = await Promise.all([
      createSessions(),
      createTronSessions(),
      fund(),
    ]);
    phase(`funded and booked, ${SESSIONS} + ${TRON_DEPOSITS} sessions created`);
    miner = setInterval(() => tron.mineBroadcasts(), 300);
    const [evm, tronResult] = await Promise.all([evmRun(evmSessions), tronRun(tronSessions)]);
    await worker.stop();
    clearInterval(miner);
    miner = undefined;
    tron.mineBroadcasts();
    const reconciled = reconcileWithCli();

    const facts: EvmSoakFacts = {
      api,
      devnet,
      merchant: evmMerchant,
      hot: hot.address,
      sweeper: sweeper.address,
      delegate,
      firstBlock,
      runStart,
      pooledBy,
      strikes,
    };
    const evmFigures = await checkEvmBooks(facts);
    const tronFigures = await checkTronBooks({
      api,
      node: tron,
      merchant: tronMerchant,
      hot: tronHot,
      token: TRON_USDT,
      staking,
      deposits: tronResult.sessions,
      runStart,
    });

    // Reconciliation, the operator's command: 0 for every (network, currency), exit 0.
    const result = await reconciled;
    const rows = JSON.parse(result.stdout || '[]') as Array<{
      network: string;
      currency: string;
      difference: string;
    }>;
    expect(rows.map((row) => `${row.network} ${row.currency} ${row.difference}`).sort()).toEqual(
      ['ETHEREUM ETH 0', 'ETHEREUM USDC 0', 'ETHEREUM USDT 0', 'TRON TRX 0', 'TRON USDT 0'].sort(),
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });

    expect(strikes).toHaveLength(WAVES);
    process.stdout.write(
      `treasury randomized (seed ${seeded.seed}): ETHEREUM ${SESSIONS} sessions, ${evm.payouts} ` +
        `payouts, ${evm.refunds} refunds, ${JSON.stringify(evmFigures)}; TRON ${TRON_DEPOSITS} ` +
        `deposits, ${tronResult.payouts} payouts, ${tronResult.refunds} refunds, ` +
        `${JSON.stringify(tronFigures)}; ${strikes.length} kills striking ` +
        `${strikes.map((struck) => struck.length).join('+')} in flight, worker boots ` +
        `${worker.boots.join(', ')} s; ${seconds()} s\n`,
    );
  }, 900_000);
});
