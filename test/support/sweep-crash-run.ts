import Decimal from 'decimal.js';
import { getAddress, parseUnits, Transaction } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '@app/chains/contracts/contract-artifacts';
import { BroadcastGate } from './broadcast-gate';
import { buildApp } from './built-apps';
import { useChainEnvironment } from './chain-test-env';
import { Devnet, DEVNET_ACCOUNTS, DevnetTransfer, startDevnet } from './devnet';
import { LaggingBalancer } from './lagging-balancer';
import { startPayoutsOnNewChain } from './payout-chain';
import { devnetSweeper, startSweepsOnNewChain, sweepEnvironment } from './sweep-env';
import { TestApi, TestMerchant } from './test-app';
import { WorkerProcess } from './worker-process';

const SESSIONS = 150;
const WAVES = 5;
const KILLS = 8;
/** The kill that strikes a worker hanging in the broadcast of a sweep it has just journaled. */
const GATED_KILL = 4;
const BATCH_SIZE = 10;
const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const SWEPT = SWEEP_DELEGATE_INTERFACE.getEvent('Swept')!;

export interface SweepCrashRunOptions {
  /** The worker's RPC: the node, or a balancer over it and a backend `lagBlocks` behind. */
  rpc: 'direct' | { lagBlocks: number };
  /** At the gated kill: the base fee jumps far above the journaled sweep's bid (under the cap). */
  baseFeeSpike: boolean;
  /** anvil's account that sweeps (devnetSweeper): each suite its own. */
  sweeperAccount: number;
}

interface SessionPaid {
  id: string;
  address: string;
  amount: string;
}

/*
 * The worker as a real process, SIGKILLed at random moments (once right after it journaled a
 * sweep, before the node saw it) while 150 paid sessions come in on a chain mining a block a
 * second and are swept in batches of ten. Afterwards the chain and the books must tell the same
 * story: every address empty, every Swept event booked once, every sweeper nonce one sweep with
 * its fee to the wei.
 */
export function describeSweepCrashRun(title: string, options: SweepCrashRunOptions): void {
  describe(title, () => {
    let devnet: Devnet;
    let balancer: LaggingBalancer | undefined;
    let gate: BroadcastGate;
    let api: TestApi;
    let merchant: TestMerchant;
    let delegate: string;
    let environment: ReturnType<typeof useChainEnvironment>;
    const worker = new WorkerProcess('sweeps-crash');
    let runStart: Date;
    const sweeper = devnetSweeper(options.sweeperAccount);

    beforeAll(async () => {
      // The compiled worker, as in production; building it takes minutes on a slow machine.
      await buildApp('worker');
      devnet = await startDevnet({ blockTime: 1 });
      if (options.rpc !== 'direct') {
        // The token and the delegate are older than the lag on a real chain.
        await devnet.provider.send('anvil_mine', ['0x' + (4 * options.rpc.lagBlocks).toString(16)]);
        balancer = await LaggingBalancer.start(devnet.rpcUrl, {
          lagBlocks: options.rpc.lagBlocks,
          mode: 'random',
          seed: Date.now() % 100_000,
        });
      }
      gate = await BroadcastGate.start(balancer?.url ?? devnet.rpcUrl);
      const sweep = await sweepEnvironment(
        devnet,
        { batchSize: BATCH_SIZE },
        [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
        sweeper,
      );
      delegate = sweep.delegate;
      environment = useChainEnvironment(
        devnet.networksFileJson({ rpcUrls: [gate.url], confirmations: 1 }),
        {
          ...sweep.environment,
          WATCH_NETWORKS: 'ETHEREUM',
          DEPOSIT_SCAN_INTERVAL_MS: '200',
          TREASURY_SWEEP_INTERVAL_MS: '300',
          PAYOUT_TRACK_INTERVAL_MS: '300',
          // Long enough for a restarted worker to send a journaled sweep's own bytes first.
          PAYOUT_REPLACE_AFTER_MS: '15000',
        },
      );
      api = await TestApi.start();
      await startPayoutsOnNewChain(api, 'ETHEREUM');
      await startSweepsOnNewChain(api.dataSource);
      merchant = await api.createMerchant();
      runStart = (await api.dataSource.query(`SELECT now() AS now`))[0].now as Date;
    }, 300_000);

    afterAll(async () => {
      await worker.stop();
      await api?.close();
      await gate?.stop();
      await balancer?.stop();
      await devnet?.stop();
      environment?.restore();
      worker.removeLog();
    });

    async function diagnostics(): Promise<string> {
      const sweeps = await api.dataSource.query(
        `SELECT status, count(*)::int AS count FROM sweeps
          WHERE created_at >= $1 AND sweeper_address = $2 GROUP BY 1`,
        [runStart, sweeper.address],
      );
      const log = worker.lastLines();
      return `sweeps: ${JSON.stringify(sweeps)}\nlast lines of the workers' log:\n${log}`;
    }

    function waitWithWorker(check: () => Promise<boolean>, what: string, ms = 60_000) {
      return worker.waitWhileRunning(check, ms, what, diagnostics);
    }

    const attemptsOfRun = (where = 'true') =>
      api.count(
        'sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id',
        `s.created_at >= $1 AND s.sweeper_address = $2 AND ${where}`,
        [runStart, sweeper.address],
      );
    const sweepsOfRun = (where = 'true') =>
      api.count('sweeps', `created_at >= $1 AND sweeper_address = $2 AND ${where}`, [
        runStart,
        sweeper.address,
      ]);
    const confirmedPayments = () =>
      api.count(
        'session_transactions t JOIN checkout_sessions s ON s.id = t.session_id',
        `s.merchant_id = $1 AND t.status = 'Confirmed'`,
        [merchant.id],
      );
    const sweptItems = () =>
      api.count(
        'sweep_items i JOIN sweeps s ON s.id = i.sweep_id',
        `s.created_at >= $1 AND s.sweeper_address = $2 AND i.status = 'Swept'`,
        [runStart, sweeper.address],
      );
    const progress = async () =>
      (await attemptsOfRun()) +
      (await sweepsOfRun(`status <> 'Processing'`)) +
      (await confirmedPayments());

    async function createSessions(): Promise<SessionPaid[]> {
      const sessions: SessionPaid[] = [];
      for (let i = 0; i < SESSIONS; i += 10) {
        const created = await Promise.all(
          Array.from({ length: Math.min(10, SESSIONS - i) }, (_, j) => {
            const index = i + j;
            const amount = `${3 + (index % 11)}.${String((index * 37) % 100).padStart(2, '0')}`;
            return api
              .post('/v1/checkout/sessions', merchant, {
                pricing_amount: amount,
                pricing_currency: 'USD',
                currency: 'USDT',
                network: 'ETHEREUM',
              })
              .expect(201)
              .then(({ body }) => ({
                id: body.id as string,
                address: body.pay_address as string,
                amount,
              }));
          }),
        );
        sessions.push(...created);
      }
      return sessions;
    }

    async function pay(sessions: SessionPaid[]): Promise<void> {
      const transfers: DevnetTransfer[] = sessions.map((session) => ({
        currency: 'USDT',
        to: session.address,
        amount: session.amount,
      }));
      await devnet.transferMany(transfers);
    }

    /** A worker hanging in the broadcast of a sweep it journaled, killed there. */
    async function killAfterJournal(): Promise<string> {
      gate.close();
      // A journaled attempt whose bytes are held at the gate and that no broadcast reached yet.
      const heldJournaled = async () => {
        const hashes = gate.held.map((raw) => Transaction.from(raw).hash);
        const rows: Array<{ tx_hash: string; raw_transaction: string }> = hashes.length
          ? await api.dataSource.query(
              `SELECT tx_hash, raw_transaction FROM sweep_attempts
                WHERE tx_hash = ANY($1) AND broadcast_count = 0 ORDER BY id DESC LIMIT 1`,
              [hashes],
            )
          : [];
        return rows[0];
      };
      await waitWithWorker(
        async () => (await heldJournaled()) !== undefined,
        'a sweep journaled and held in its broadcast',
      );
      await worker.stop();
      const held = (await heldJournaled())!;
      // The node never saw it: only the journal has these bytes.
      expect(await devnet.provider.getTransaction(held.tx_hash)).toBeNull();
      expect(Transaction.from(held.raw_transaction).hash).toBe(held.tx_hash);
      if (options.baseFeeSpike) await spikeAbove(Transaction.from(held.raw_transaction));
      gate.open();
      return held.tx_hash;
    }

    /**
     * The base fee jumps far above the bid of a sweep the node has not seen yet (under the cap):
     * when the restarted worker sends those journaled bytes they wait in the pool, and only an
     * outbid with the same nonce gets them mined before the fee decays (12.5 % a block).
     */
    async function spikeAbove(held: Transaction): Promise<void> {
      // A hundredfold takes some 35 blocks to decay, twice PAYOUT_REPLACE_AFTER_MS; the cap is 1000.
      const hundredfold = held.maxFeePerGas! * 100n;
      const floor = parseUnits('60', 'gwei');
      const ceiling = parseUnits('500', 'gwei');
      const spike = hundredfold < floor ? floor : hundredfold > ceiling ? ceiling : hundredfold;
      await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', ['0x' + spike.toString(16)]);
      await devnet.provider.send('evm_mine', []);
    }

    it(`sweeps ${SESSIONS} paid sessions exactly once across ${KILLS} SIGKILLs`, async () => {
      const sessions = await createSessions();
      const hotBefore = await devnet.balanceOf('USDT', HOT_WALLET);
      const waveSize = Math.ceil(SESSIONS / WAVES);
      let waves = 0;
      await pay(sessions.slice(0, waveSize));
      waves += 1;
      worker.start();
      let journaledBeforeKill: string | undefined;
      const remainingAtKill: number[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        if (kill % 2 === 0 && waves < WAVES) {
          await pay(sessions.slice(waves * waveSize, (waves + 1) * waveSize));
          waves += 1;
        }
        if (kill === GATED_KILL) {
          journaledBeforeKill = await killAfterJournal();
        } else {
          const before = await progress();
          await waitWithWorker(async () => (await progress()) > before, 'the worker at work');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 500));
          remainingAtKill.push(SESSIONS - (await sweptItems()));
          await worker.stop();
        }
        worker.start();
      }
      while (waves < WAVES) {
        await pay(sessions.slice(waves * waveSize, (waves + 1) * waveSize));
        waves += 1;
      }

      const addresses = sessions.map((session) => session.address);
      const holding = async () => {
        let count = 0;
        for (const address of addresses)
          if ((await devnet.balanceOf('USDT', address)) > 0n) count++;
        return count;
      };
      await waitWithWorker(
        async () =>
          (await confirmedPayments()) === SESSIONS &&
          (await sweepsOfRun(`status = 'Processing'`)) === 0 &&
          (await holding()) === 0,
        'every address swept and no sweep in flight',
        180_000,
      );
      await worker.stop();

      // Every deposit address empty, no native coin ever sent to one; the hot wallet got it all.
      const paid = sessions.reduce((sum, s) => sum + parseUnits(s.amount, 6), 0n);
      for (const address of addresses) expect(await devnet.provider.getBalance(address)).toBe(0n);
      expect((await devnet.balanceOf('USDT', HOT_WALLET)) - hotBefore).toBe(paid);

      // Every Swept event of the chain booked once, with its amount; nothing booked beyond them.
      const logs = await devnet.provider.getLogs({
        address: delegate,
        topics: [SWEPT.topicHash],
        fromBlock: 0,
        toBlock: 'latest',
      });
      const events = logs.map((log) => {
        const event = SWEEP_DELEGATE_INTERFACE.decodeEventLog(SWEPT, log.data, log.topics);
        return {
          reference: `sweep:ETHEREUM:${log.transactionHash.toLowerCase()}:${log.index}`,
          amount: event.amount as bigint,
          destination: getAddress(event.destination as string),
        };
      });
      const moving = events.filter((event) => event.amount > 0n);
      expect(moving.reduce((sum, event) => sum + event.amount, 0n)).toBe(paid);
      expect(new Set(moving.map((event) => event.destination))).toEqual(new Set([HOT_WALLET]));
      const booked: Array<{ reference: string; account: string; amount: string }> =
        await api.dataSource.query(
          `SELECT e.reference, l.account, l.amount::text FROM ledger_entries e
             JOIN ledger_lines l ON l.entry_id = e.id
            WHERE e.kind = 'sweep' AND e.reference LIKE 'sweep:ETHEREUM:%' AND e.created_at >= $1
            ORDER BY e.reference, l.account`,
          [runStart],
        );
      const bookedReferences = [...new Set(booked.map((line) => line.reference))].sort();
      expect(bookedReferences).toEqual(moving.map((event) => event.reference).sort());
      for (const event of moving) {
        const lines = booked.filter((line) => line.reference === event.reference);
        // Sweeps move the service's own holdings only: never a merchant's account.
        expect(lines.map((line) => [line.account, toBaseUnits(line.amount, 6)])).toEqual([
          ['deposits:ETHEREUM:USDT', -event.amount],
          ['hot_wallet:ETHEREUM:USDT', event.amount],
        ]);
      }

      // The sweeper's nonces: one sweep each, none skipped, every mined one's fee booked to the wei.
      const sweeps: Array<{ id: string; nonce: string; status: string; tx_hash: string }> =
        await api.dataSource.query(
          `SELECT id, nonce, status, tx_hash FROM sweeps
            WHERE created_at >= $1 AND sweeper_address = $2 ORDER BY nonce`,
          [runStart, sweeper.address],
        );
      const mined = await devnet.provider.getTransactionCount(sweeper.address, 'latest');
      expect(sweeps.map((sweep) => Number(sweep.nonce))).toEqual(
        Array.from({ length: mined }, (_, nonce) => nonce),
      );
      expect(sweeps.filter((sweep) => sweep.status === 'Processing')).toEqual([]);
      const fees: Array<{ reference: string; amount: string }> = await api.dataSource.query(
        `SELECT e.reference, l.amount::text FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
          WHERE e.reference LIKE 'network_fee:ETHEREUM:%' AND l.account = 'sweeper:ETHEREUM:ETH'
            AND e.created_at >= $1`,
        [runStart],
      );
      expect(fees).toHaveLength(mined);
      for (const sweep of sweeps) {
        const receipt = (await devnet.provider.getTransactionReceipt(sweep.tx_hash))!;
        const transaction = (await devnet.provider.getTransaction(sweep.tx_hash))!;
        expect(getAddress(transaction.from)).toBe(sweeper.address);
        expect(transaction.nonce).toBe(Number(sweep.nonce));
        expect(sweep.status).toBe(receipt.status === 1 ? 'Completed' : 'Failed');
        const fee = fees.find((row) => row.reference === `network_fee:ETHEREUM:${sweep.tx_hash}`);
        expect(-toBaseUnits(fee!.amount, 18)).toBe(receipt.gasUsed * receipt.gasPrice);
      }
      // The sweep journaled before the kill went out later with those very bytes.
      expect(journaledBeforeKill).toBeDefined();
      const sent = await devnet.provider.getTransaction(journaledBeforeKill!);
      expect(sent?.blockNumber).not.toBeNull();

      // The merchant was credited by the payments (1 % fee), and sweeps changed nothing of it.
      const credited = sessions.reduce(
        (sum, s) => sum.plus(new Decimal(s.amount).mul('0.99')),
        new Decimal(0),
      );
      const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
      expect(balances).toHaveLength(1);
      expect(new Decimal(balances[0].available).toFixed()).toBe(credited.toFixed());

      if (options.baseFeeSpike) {
        // Bids stuck under the spike were outbid with their nonce, and still swept once.
        expect(await attemptsOfRun('a.attempt_number > 1')).toBeGreaterThan(0);
      }
      // Every kill struck a run with addresses still to sweep.
      expect(remainingAtKill.filter((remaining) => remaining > 0)).toHaveLength(KILLS - 1);
      const replaced = await attemptsOfRun('a.attempt_number > 1');
      process.stdout.write(
        `sweep crash run (${JSON.stringify(options.rpc)}): ${sweeps.length} sweeps, ${KILLS} kills, ` +
          `${replaced} replacements, ${events.length - moving.length} Swept events of 0, ` +
          `${sweeps.filter((s) => s.status !== 'Completed').length} not completed\n`,
      );
    }, 400_000);
  });
}

/** A ledger amount (numeric(38, 18)) in base units: 6 decimals for the tokens, 18 for ETH (wei). */
function toBaseUnits(amount: string, decimals: number): bigint {
  return BigInt(new Decimal(amount).mul(new Decimal(10).pow(decimals)).toFixed(0));
}
