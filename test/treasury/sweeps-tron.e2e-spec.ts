import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { formatUnits } from 'ethers';
import { TronWeb } from 'tronweb';
import { NetworkRegistry, TESTNET_NETWORKS } from '@app/chains';
import { DepositWatcherService } from '@app/deposits';
import { Registry } from 'prom-client';
import { SweepKeys, SweepPlannerRepository, SweepStatus, TreasurySweeps } from '@app/treasury';
import { TronSweepChains } from '@app/treasury/sweeps/tron-sweep-chains';
import { TronSweepPlanner } from '@app/treasury/sweeps/tron-sweep-planner';
import { TronSweepSteps } from '@app/treasury/sweeps/tron-sweep-steps';
import { CliModule } from '../../apps/cli/src/cli.module';
import { SweepTrxReadGauge } from '../../apps/worker/src/treasury/sweep-trx-read.gauge';
import { useChainEnvironment } from '../support/chain-test-env';
import { forgetChain } from '../support/chain-reset';
import { FakeTronNode } from '../support/fake-tron-node';
import { TestApi, TestMerchant } from '../support/test-app';
import {
  stakeForEnergy,
  startSweepEngine,
  startTronSweepsOnNewChain,
  tronAddressOf,
  tronSweepEnvironment,
  tronTestKey,
  TRX,
} from '../support/tron-sweep-env';

const SESSIONS = '/v1/checkout/sessions';
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const STAKING_KEY = tronTestKey('tron sweeps suite staking account');
const STAKING = tronAddressOf(STAKING_KEY);
const HOT_KEY = tronTestKey('tron sweeps suite hot wallet');
const HOT = tronAddressOf(HOT_KEY);
const OTHER_STAKING_KEY = tronTestKey('tron sweeps suite another staking account');
const OTHER_STAKING = tronAddressOf(OTHER_STAKING_KEY);
const PAYER = TronWeb.address.fromPrivateKey('2'.repeat(64)) as string;
const USDT_UNIT = 1_000_000n;
/** Blocks past a transaction's block before the solidity API has it (the fake's lag is 19). */
const SOLIDIFY = 20;
/** A day of 3-second blocks: used bandwidth and energy come back. */
const DAY_OF_BLOCKS = 28_800;

interface StepRow {
  step: string;
  status: string;
  tx_hash: string;
  raw_transaction: string;
  broadcast_count: number;
}
interface SweepRow {
  id: string;
  status: string;
  tx_hash: string | null;
  error_reason: string | null;
}

/*
 * TRON sweeps on the fake full node (tronweb's own signing; the node charges activation,
 * bandwidth and energy as java-tron does, and each info's fee is its payer's balance change).
 * Deposits arrive through sessions and the deposit watcher (driven by scan(), as its own suite
 * does). The test runs the sweep passes itself and mines between them, so each step is seen
 * signed, sent, mined, solidified and booked.
 */
describe('TRON sweeps: activate, lend energy, sweep, take the energy back', () => {
  let node: FakeTronNode;
  let api: TestApi;
  let merchant: TestMerchant;
  let watcher: DepositWatcherService;
  let engine: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;
  let stakingBefore: bigint;
  const suiteSweeps: string[] = [];
  let firstAddress: string;
  /** The address this suite freezes; other suites in the same database may have frozen theirs. */
  let frozenAddress: string | undefined;

  beforeAll(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    node.mineEmpty(5);
    node.setTrxBalance(STAKING, 100_000n * TRX);
    await stakeForEnergy(node, STAKING_KEY, 30_000n * TRX);
    // The hot wallet holds USDT: a transfer to it takes 64,285 energy.
    node.setTokenBalance(USDT, HOT, USDT_UNIT);
    stakingBefore = node.trxBalance(STAKING)!;
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
      }),
      // Refused transfers are tried again at once (the backoff has its own suite).
      { ...tronSweepEnvironment(STAKING_KEY, { retryBackoffSeconds: 0 }), WATCH_NETWORKS: 'none' },
    );
    api = await TestApi.start();
    watcher = api.app.get(DepositWatcherService);
    await forgetChain(api.app, 'TRON');
    await startTronSweepsOnNewChain(api.dataSource, HOT);
    merchant = await api.createMerchant();
    engine = await startSweepEngine();
  });

  afterAll(async () => {
    await engine?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  /** A customer pays `amount` USDT to a new session; the watcher confirms it. */
  async function paidSession(amount: string): Promise<string> {
    const { body } = await api
      .post(SESSIONS, merchant, {
        pricing_amount: amount,
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    await pay(body.pay_address, BigInt(amount) * USDT_UNIT);
    const paid = await api.get(`${SESSIONS}/${body.id}`, merchant).expect(200);
    expect(paid.body.status).toBe('Paid');
    return body.pay_address;
  }

  /** A TRC-20 transfer to the address, mined and seen by the watcher. */
  async function pay(address: string, units: bigint): Promise<void> {
    node.addTransferBlock([{ contract: USDT, from: PAYER, to: address, amount: units }]);
    // addTransferBlock leaves balances alone: the token's storage as the transfer left it.
    node.setTokenBalance(USDT, address, node.tokenBalance(USDT, address) + units);
    // The watcher reads a bounded range of blocks a tick: after a day of blocks, several ticks.
    for (let tick = 0; tick < 1_000; tick++) {
      const report = await watcher.scan('TRON');
      if (report.cursor >= report.head) return;
    }
    throw new Error('the deposit watcher did not catch up');
  }

  const sweeps = () => engine.get(TreasurySweeps);

  async function sweepsOf(address: string): Promise<SweepRow[]> {
    const rows: SweepRow[] = await api.dataSource.query(
      `SELECT s.id, s.status, s.tx_hash, s.error_reason FROM sweeps s
         JOIN sweep_items i ON i.sweep_id = s.id
        WHERE s.network = 'TRON' AND i.address = $1 ORDER BY s.created_at`,
      [address],
    );
    for (const row of rows) if (!suiteSweeps.includes(row.id)) suiteSweeps.push(row.id);
    return rows;
  }

  async function stepsOf(sweepId: string): Promise<StepRow[]> {
    return api.dataSource.query(
      `SELECT step, status, tx_hash, raw_transaction, broadcast_count FROM sweep_attempts
        WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );
  }

  const newest = async (address: string) => (await sweepsOf(address)).at(-1);

  /** Passes, each followed by a block of what was sent and enough blocks to solidify it. */
  async function drive(done: () => Promise<boolean>, passes = 12): Promise<void> {
    for (let pass = 0; pass < passes; pass++) {
      expect(await sweeps().run('TRON')).not.toBeNull();
      if (await done()) return;
      node.mineBroadcasts();
      node.mineEmpty(SOLIDIFY);
    }
    throw new Error(`not done after ${passes} passes`);
  }

  /** A finished sweep that moved another address's USDT, now (its row is the evidence only). */
  async function sweptNeighbour(): Promise<void> {
    const id = `sw_neighbour_${Date.now()}`;
    await api.dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, completed_at)
       VALUES ($1, 'TRON', 'USDT', $2, 6, 'hot_wallet', 'TNeighbourHot', 'TNeighbourStaking', NULL,
               'Completed', 'tron', now())`,
      [id, USDT],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status, amount)
       VALUES ($1, 'TRON', 'USDT', $2, 0, 1, false, 'Swept', 1)`,
      [id, `TNeighbour${Date.now()}`],
    );
  }

  const ended = (address: string) => async () => {
    const sweep = await newest(address);
    return sweep !== undefined && sweep.status !== 'Processing';
  };

  /** The transaction info's fee, as the node reports it (absent: 0), in sun. */
  async function infoFee(txId: string): Promise<bigint> {
    const response = await fetch(`${node.url}/wallet/gettransactioninfobyid`, {
      method: 'POST',
      body: JSON.stringify({ value: txId }),
    });
    const info = (await response.json()) as { fee?: number };
    return BigInt(info.fee ?? 0);
  }

  async function linesOf(reference: string): Promise<Array<{ account: string; amount: string }>> {
    return api.dataSource.query(
      `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference LIKE $1 ORDER BY l.account`,
      [reference],
    );
  }

  const sun = (trx: string) => {
    const [whole, fraction = ''] = trx.replace('-', '').split('.');
    const value = BigInt(whole) * TRX + BigInt(fraction.padEnd(6, '0').slice(0, 6));
    return trx.startsWith('-') ? -value : value;
  };

  it('activates a new deposit address, lends it energy, sweeps it whole to the hot wallet and takes the energy back', async () => {
    const address = await paidSession('25');
    firstAddress = address;
    const hotBefore = node.tokenBalance(USDT, HOT);
    const stakingStart = node.trxBalance(STAKING)!;

    await drive(ended(address));

    const [sweep] = await sweepsOf(address);
    expect(sweep.status).toBe('Completed');
    const steps = await stepsOf(sweep.id);
    expect(steps.map((step) => [step.step, step.status])).toEqual([
      ['activate', 'Mined'],
      ['delegate', 'Mined'],
      ['transfer', 'Mined'],
      ['undelegate', 'Mined'],
    ]);
    const transfer = steps[2];
    expect(sweep.tx_hash).toBe(transfer.tx_hash);
    expect(node.tokenBalance(USDT, address)).toBe(0n);
    expect(node.tokenBalance(USDT, HOT) - hotBefore).toBe(25n * USDT_UNIT);
    // An account now, holding no TRX and having burnt none; its energy is back with the staker.
    expect(node.isAccount(address)).toBe(true);
    expect(node.trxBalance(address)).toBe(0n);
    expect(await infoFee(transfer.tx_hash)).toBe(0n);
    expect(node.energyLeft(address)).toBe(0n);

    // The staking account paid activation and bandwidth: its balance change is the booked fees.
    let booked = 0n;
    for (const step of steps.filter((candidate) => candidate.step !== 'transfer')) {
      const fee = await infoFee(step.tx_hash);
      const lines = await linesOf(`network_fee:TRON:${step.tx_hash}`);
      if (fee === 0n) {
        expect(lines).toEqual([]);
        continue;
      }
      expect(lines.map((line) => line.account)).toEqual([
        'network_fees:TRON:TRX',
        'staking:TRON:TRX',
      ]);
      expect(sun(lines[0].amount)).toBe(fee);
      expect(sun(lines[1].amount)).toBe(-fee);
      booked += fee;
    }
    expect(booked).toBeGreaterThanOrEqual(1_100_000n); // activation: 1 TRX + 0.1 TRX at least
    expect(stakingStart - node.trxBalance(STAKING)!).toBe(booked);

    // The tokens the Transfer log shows moved: deposits -> hot wallet, exactly.
    expect(await linesOf(`sweep:TRON:${transfer.tx_hash}:%`)).toEqual([
      { account: 'deposits:TRON:USDT', amount: '-25.000000000000000000' },
      { account: 'hot_wallet:TRON:USDT', amount: '25.000000000000000000' },
    ]);
    const [item] = await api.dataSource.query(
      `SELECT status, amount::text, authorized FROM sweep_items WHERE sweep_id = $1`,
      [sweep.id],
    );
    expect(item).toEqual({ status: 'Swept', amount: '25.000000000000000000', authorized: true });

    // The next pass reads the address empty and clears it.
    await sweeps().run('TRON');
    const [pending] = await api.dataSource.query(
      `SELECT pending_since FROM sweep_addresses WHERE network = 'TRON' AND address = $1`,
      [address],
    );
    expect(pending.pending_since).toBeNull();
  });

  it('sends a step whose broadcast was lost again from its stored bytes, and signs it again only once proven expired', async () => {
    const address = await paidSession('12');
    await sweeps().run('TRON');
    const [sweep] = await sweepsOf(address);
    const [first] = await stepsOf(sweep.id);
    expect(first.step).toBe('activate');
    expect(node.pendingTxIds).toContain(first.tx_hash);

    node.dropBroadcasts(); // the node restarted: the broadcast is lost
    await sweeps().run('TRON');
    expect(node.pendingTxIds).toEqual([first.tx_hash]);
    const [resent] = await stepsOf(sweep.id);
    expect(resent.tx_hash).toBe(first.tx_hash);
    expect(resent.broadcast_count).toBe(2);
    const sent = node.broadcasts.filter((broadcast) => broadcast.txid === first.tx_hash);
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent[1].transaction)).toBe(
      JSON.stringify(JSON.parse(first.raw_transaction)),
    );

    // Lost again, and its whole life (60 s) passes in blocks that solidify without it.
    node.dropBroadcasts();
    node.mineEmpty(45);
    await sweeps().run('TRON');
    const steps = await stepsOf(sweep.id);
    expect(steps.map((step) => [step.step, step.status])).toEqual([
      ['activate', 'Expired'],
      ['activate', 'Broadcast'],
    ]);
    expect(steps[1].tx_hash).not.toBe(first.tx_hash);

    await drive(ended(address));
    expect((await newest(address))!.status).toBe('Completed');
    expect((await stepsOf(sweep.id)).map((step) => step.step)).toEqual([
      'activate',
      'activate',
      'delegate',
      'transfer',
      'undelegate',
    ]);
    expect(node.tokenBalance(USDT, address)).toBe(0n);
  });

  it('sends the stored bytes of a step journaled by an engine that stopped before sending it', async () => {
    const address = await paidSession('13');
    // The first half of a pass, by hand: the sweep and its signed first step stored, not sent.
    const planner = engine.get(TronSweepPlanner);
    const chain = (await engine.get(TronSweepChains).chainFor('TRON'))!;
    const network = engine.get(NetworkRegistry).get('TRON');
    const settings = engine.get(SweepKeys).settings.get('TRON')!;
    const assessment = await planner.assess(
      network,
      settings,
      chain,
      'USDT',
      await planner.prices(chain),
      new Date(),
    );
    const candidate = assessment.funded.find((funded) => funded.address === address)!;
    expect(candidate.decision.sweep).toBe(true);
    const journaled = (await planner.journalStart(chain, network, settings, 'USDT', candidate))!;
    expect(journaled.status).toBe('Signed');
    expect(node.broadcasts.some((broadcast) => broadcast.txid === journaled.tx_hash)).toBe(false);

    // The engine is gone; a new one finds the stored step and sends exactly it.
    await engine.close();
    engine = await startSweepEngine();
    await sweeps().run('TRON');
    expect(node.pendingTxIds).toContain(journaled.tx_hash);
    const [sent] = node.broadcasts.filter((broadcast) => broadcast.txid === journaled.tx_hash);
    expect(JSON.stringify(sent.transaction)).toBe(
      JSON.stringify(JSON.parse(journaled.raw_transaction)),
    );
    const sweepsOfAddress = await sweepsOf(address);
    expect(sweepsOfAddress).toHaveLength(1);

    await drive(ended(address));
    expect((await newest(address))!.status).toBe('Completed');
    expect(node.tokenBalance(USDT, address)).toBe(0n);
  });

  it('freezes an address whose transfer the token refuses (REVERT) three times while it moves others, and never tries it again; a refusal of everyone counts nothing', async () => {
    const address = await paidSession('16');
    frozenAddress = address;
    // Free bandwidth for several transfers a day: four tries without waiting a day each.
    const freeBytes = node.chainParameter('getFreeNetLimit');
    node.setChainParameter('getFreeNetLimit', 5_000);
    // Round 0: no other address is swept meanwhile (as under a paused token): not counted.
    for (let failure = 0; failure <= 3; failure++) {
      let trying: SweepRow | undefined;
      await drive(async () => {
        trying = (await sweepsOf(address)).find((sweep) => sweep.status === 'Processing');
        return (
          trying !== undefined && (await stepsOf(trying.id)).some((s) => s.step === 'transfer')
        );
      });
      // The evidence that the token works and refuses only this address: it moved another
      // address's USDT since this sweep started.
      if (failure > 0) await sweptNeighbour();
      // The token refuses the transfer when it is mined, as a blacklist does (here: the
      // address holds a unit less than the signed amount, so USDT reverts).
      node.setTokenBalance(USDT, address, node.tokenBalance(USDT, address) - 1n);
      node.mineBroadcasts();
      node.mineEmpty(SOLIDIFY);
      const sweepOf = async () => (await sweepsOf(address)).find((sw) => sw.id === trying!.id)!;
      await drive(async () => (await sweepOf()).status !== 'Processing');
      const sweep = await sweepOf();
      expect(sweep.status).toBe('Failed');
      expect(sweep.error_reason).toContain('REVERT');
      const [watched] = await api.dataSource.query(
        `SELECT failures, frozen_at FROM sweep_addresses WHERE network = 'TRON' AND address = $1`,
        [address],
      );
      expect(watched.failures).toBe(failure);
      expect(watched.frozen_at === null).toBe(failure < 3);
      expect(node.energyLeft(address)).toBe(0n);
    }
    node.setChainParameter('getFreeNetLimit', freeBytes);
    // Frozen: reported, never swept again.
    await sweeps().run('TRON');
    expect(await sweepsOf(address)).toHaveLength(4);
    const [status] = await engine.get(SweepStatus).report('TRON');
    expect(status.frozen_addresses.filter((frozen) => frozen.address === address)).toEqual([
      expect.objectContaining({ currency: 'USDT', address }),
    ]);
    expect(node.trxBalance(address)).toBe(0n);
  });

  it('books a transfer that runs out of energy with its fee, takes the energy back, and sweeps the address again later without activating it', async () => {
    const address = await paidSession('14');
    const transferSent = async () => {
      const sweep = await newest(address);
      return sweep !== undefined && (await stepsOf(sweep.id)).some((s) => s.step === 'transfer');
    };
    await drive(transferSent);
    // Before it is mined the hot wallet is emptied: a transfer to a new holder needs 130,285
    // energy, twice what was lent and what the fee_limit allows.
    const hotHeld = node.tokenBalance(USDT, HOT);
    node.setTokenBalance(USDT, HOT, 0n);
    node.mineBroadcasts();
    node.setTokenBalance(USDT, HOT, hotHeld);
    node.mineEmpty(SOLIDIFY);
    await drive(ended(address));

    const [failed] = await sweepsOf(address);
    expect(failed.status).toBe('Failed');
    expect(failed.error_reason).toContain('OUT_OF_ENERGY');
    const steps = await stepsOf(failed.id);
    expect(steps.map((step) => [step.step, step.status])).toEqual([
      ['activate', 'Mined'],
      ['delegate', 'Mined'],
      ['transfer', 'Mined'],
      ['undelegate', 'Mined'],
    ]);
    const transfer = steps[2];
    // Its fee is what the info says (the lent energy and free bandwidth paid: 0), booked as such.
    const fee = await infoFee(transfer.tx_hash);
    const feeLines = await linesOf(`network_fee:TRON:${transfer.tx_hash}`);
    expect(fee === 0n ? feeLines : sun(feeLines[0].amount)).toEqual(fee === 0n ? [] : fee);
    expect(await linesOf(`sweep:TRON:${transfer.tx_hash}:%`)).toEqual([]);
    expect(node.tokenBalance(USDT, address)).toBe(14n * USDT_UNIT);
    expect(node.energyLeft(address)).toBe(0n);
    expect(node.trxBalance(address)).toBe(0n);
    const [watched] = await api.dataSource.query(
      `SELECT failures, frozen_at, pending_since FROM sweep_addresses
        WHERE network = 'TRON' AND address = $1`,
      [address],
    );
    expect(watched.failures).toBe(0); // out of energy is ours to fix, not a blacklist
    expect(watched.pending_since).not.toBeNull();

    // Its free bandwidth is spent for today: no sweep would be accepted, none is signed.
    await sweeps().run('TRON');
    expect(await sweepsOf(address)).toHaveLength(1);

    // A second payment to the suite's first address (also swept today), and a day later.
    const earlier = firstAddress;
    await pay(earlier, 5n * USDT_UNIT);
    node.mineEmpty(DAY_OF_BLOCKS);
    await drive(async () => {
      const [again, earlierAgain] = [await sweepsOf(address), await sweepsOf(earlier)];
      return (
        again.length === 2 &&
        earlierAgain.length === 2 &&
        [...again, ...earlierAgain].every((sweep) => sweep.status !== 'Processing')
      );
    });
    for (const swept of [address, earlier]) {
      const sweep = (await newest(swept))!;
      expect(sweep.status).toBe('Completed');
      // Already accounts: no activation this time.
      expect((await stepsOf(sweep.id)).map((step) => step.step)).toEqual([
        'delegate',
        'transfer',
        'undelegate',
      ]);
      expect(node.tokenBalance(USDT, swept)).toBe(0n);
      expect(node.trxBalance(swept)).toBe(0n);
    }
  });

  it('books exactly what the staking account paid, to the sun, and no deposit address paid anything', async () => {
    const [{ total }] = await api.dataSource.query(
      `SELECT COALESCE(sum(l.amount), 0)::text AS total
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE l.account = 'staking:TRON:TRX'
          AND e.reference IN (SELECT 'network_fee:TRON:' || tx_hash FROM sweep_attempts
                               WHERE sweep_id = ANY($1))`,
      [suiteSweeps],
    );
    expect(-sun(total)).toBe(stakingBefore - node.trxBalance(STAKING)!);
    const [{ deposits }] = await api.dataSource.query(
      `SELECT count(*)::int AS deposits FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE l.account = 'deposits:TRON:TRX'
          AND e.reference IN (SELECT 'network_fee:TRON:' || tx_hash FROM sweep_attempts
                               WHERE sweep_id = ANY($1))`,
      [suiteSweeps],
    );
    expect(deposits).toBe(0);

    // treasury:status shows the staking account's TRX and nothing left to sweep.
    const [status] = await engine.get(SweepStatus).report('TRON');
    expect(status).toMatchObject({
      network: 'TRON',
      sweeper: STAKING,
      sweeper_native: `${formatUnits(node.trxBalance(STAKING)!, 6)} TRX`,
      live_sweeps: 0,
    });
    expect(status.frozen_addresses.map((frozen) => frozen.address)).toContain(frozenAddress);
    // The frozen address still holds its tokens; nothing is eligible.
    expect(status.tokens[0]).toMatchObject({
      currency: 'USDT',
      eligible: { addresses: 0, total: '0.0', estimated_cost: '0.000000' },
    });
  });

  it('refuses to sweep while the staking account is the payout hot wallet, and says so in treasury:status', async () => {
    // An engine whose SWEEPER_KEYS_FILE holds the hot wallet's key (registered nowhere).
    const configured = process.env.SWEEPER_KEYS_FILE;
    process.env.SWEEPER_KEYS_FILE = tronSweepEnvironment(HOT_KEY).SWEEPER_KEYS_FILE;
    const misconfigured = await NestFactory.createApplicationContext(CliModule, { logger: false });
    process.env.SWEEPER_KEYS_FILE = configured;
    try {
      const sweepsBefore = await api.count('sweeps', `network = 'TRON'`);
      const attemptsBefore = await api.count('sweep_attempts', `network = 'TRON'`);
      expect(await misconfigured.get(TreasurySweeps).run('TRON')).toMatchObject({
        refused: true,
        sweeps: [],
      });
      expect(await api.count('sweeps', `network = 'TRON'`)).toBe(sweepsBefore);
      expect(await api.count('sweep_attempts', `network = 'TRON'`)).toBe(attemptsBefore);
      const [status] = await misconfigured.get(SweepStatus).report('TRON');
      expect(status.sweeping_refused).toContain(`${HOT} is the payout hot wallet`);
    } finally {
      await misconfigured.close();
    }
    // The suite's own engine, its staking account its own: not refused.
    expect((await sweeps().run('TRON'))?.refused).toBeUndefined();
    const [status] = await engine.get(SweepStatus).report('TRON');
    expect(status.sweeping_refused).toBeNull();
  });
  /** An engine whose SWEEPER_KEYS_FILE holds `stakingKey` instead of the suite's. */
  async function engineWith(stakingKey: string): Promise<INestApplicationContext> {
    const configured = process.env.SWEEPER_KEYS_FILE;
    process.env.SWEEPER_KEYS_FILE = tronSweepEnvironment(stakingKey).SWEEPER_KEYS_FILE;
    try {
      return await NestFactory.createApplicationContext(CliModule, { logger: false });
    } finally {
      process.env.SWEEPER_KEYS_FILE = configured;
    }
  }

  /** Who signed a step: its contract's owner_address, base58. */
  const signerOf = (step: StepRow): string => {
    const transaction = JSON.parse(step.raw_transaction) as {
      raw_data: { contract: Array<{ parameter: { value: { owner_address: string } } }> };
    };
    const owner = transaction.raw_data.contract[0].parameter.value.owner_address;
    return TronWeb.address.fromHex(owner) as string;
  };

  it("signs a live sweep's steps with its own staking account only, and takes its energy back while sweeping is refused", async () => {
    const address = await paidSession('7');
    const sweepId = async () => (await newest(address))!.id;
    // Lent and transferred: what is left is the take-back of the energy lent.
    await drive(async () =>
      (await stepsOf(await sweepId())).some((step) => step.step === 'transfer'),
    );
    node.mineBroadcasts();
    node.mineEmpty(SOLIDIFY);
    // Another staking key configured (and funded): it never signs for this sweep's account.
    node.setTrxBalance(OTHER_STAKING, 1_000n * TRX);
    const other = await engineWith(OTHER_STAKING_KEY);
    try {
      for (let pass = 0; pass < 2; pass++) {
        // Its passes' tracking (planning would start sweeps of its own account: not this test's).
        await other.get(TronSweepSteps).track('TRON');
        node.mineBroadcasts();
        node.mineEmpty(SOLIDIFY);
      }
    } finally {
      await other.close();
    }
    const waiting = await stepsOf(await sweepId());
    expect(waiting.map((step) => step.step).at(-1)).toBe('transfer');
    for (const step of waiting.filter((row) => row.step !== 'transfer')) {
      expect(signerOf(step)).toBe(STAKING);
    }
    expect((await newest(address))!.status).toBe('Processing');

    // Its own key back, but that account is now the registered hot wallet: nothing new is
    // planned, and the live sweep still takes its energy back, signed by its own account.
    await api.dataSource.query(`UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`, [
      STAKING,
    ]);
    try {
      await drive(async () => {
        const sweep = await newest(address);
        return sweep !== undefined && sweep.status !== 'Processing';
      });
      expect(await sweeps().run('TRON')).toMatchObject({ refused: true, sweeps: [] });
    } finally {
      await api.dataSource.query(`UPDATE hot_wallets SET address = $1 WHERE network = 'TRON'`, [
        HOT,
      ]);
    }
    const steps = await stepsOf(await sweepId());
    expect(steps.slice(-2).map((step) => [step.step, step.status])).toEqual([
      ['transfer', 'Mined'],
      ['undelegate', 'Mined'],
    ]);
    expect(signerOf(steps.at(-1)!)).toBe(STAKING);
    expect((await newest(address))!.status).toBe('Completed');
    expect(node.energyLeft(address)).toBe(0n);
  });
  it('a sweep that ends on a zero balance read (as a backend behind the payment answers) counts nothing against the address', async () => {
    const address = await paidSession('6');
    expect(await sweeps().run('TRON')).not.toBeNull();
    const [sweep] = await sweepsOf(address);
    // The node now answers zero for the tokens: nothing to lend for, nothing to move.
    node.setTokenBalance(USDT, address, 0n);
    try {
      await drive(ended(address));
    } finally {
      node.setTokenBalance(USDT, address, 6n * USDT_UNIT);
    }
    const [done] = await sweepsOf(address);
    expect(done).toMatchObject({ id: sweep.id, status: 'Failed' });
    expect((await stepsOf(sweep.id)).some((step) => step.step === 'transfer')).toBe(false);
    const [row] = await api.dataSource.query(
      `SELECT unswept_in_row, unswept_at FROM sweep_addresses
        WHERE network = 'TRON' AND currency = 'USDT' AND address = $1`,
      [address],
    );
    expect(row).toEqual({ unswept_in_row: 0, unswept_at: null });
  });

  it("waits while the address's TRX cannot be read, then books a third party's TRX as unmatched before sweeping", async () => {
    const address = await paidSession('7');
    // Someone sent the deposit address 5 TRX (it is an account now).
    node.setTrxBalance(address, 5n * TRX);
    node.unavailablePaths.add('/walletsolidity/getaccount');
    const gauges = new Registry();
    new SweepTrxReadGauge(gauges, engine.get(SweepPlannerRepository));
    const waitingGauge = async () =>
      (await gauges.getMetricsAsJSON())[0].values.find(
        (value) => value.labels.network === 'TRON' && value.labels.currency === 'USDT',
      )?.value;
    try {
      // Counted in the pass's report, listed in treasury:status (not as eligible), and gauged
      // (sweeps review M3): not only a warning in the log.
      expect(await sweeps().run('TRON')).toMatchObject({ deferredTrxRead: 1, sweeps: [] });
      expect(await sweepsOf(address)).toEqual([]);
      const [status] = await engine.get(SweepStatus).report('TRON');
      expect(status.waiting_for_trx_read).toEqual([
        { currency: 'USDT', address, since: expect.any(Date) },
      ]);
      expect(status.tokens[0].eligible.addresses).toBe(0);
      expect(await waitingGauge()).toBe(1);
    } finally {
      node.unavailablePaths.delete('/walletsolidity/getaccount');
    }
    expect(await linesOf(`unmatched_native:TRON:${address}:%`)).toEqual([]);

    await drive(ended(address));
    // Read at last: no longer waiting.
    expect((await engine.get(SweepStatus).report('TRON'))[0].waiting_for_trx_read).toEqual([]);
    expect(await waitingGauge()).toBeUndefined();
    const [sweep] = await sweepsOf(address);
    expect(sweep.status).toBe('Completed');
    expect(await linesOf(`unmatched_native:TRON:${address}:%`)).toEqual([
      { account: 'deposits:TRON:TRX', amount: '5.000000000000000000' },
      { account: 'unmatched:TRON:TRX', amount: '-5.000000000000000000' },
    ]);
    // Left on the address, unburnt: the transfer ran on lent energy and free bandwidth.
    expect(node.trxBalance(address)).toBe(5n * TRX);
  });

  it("once a transfer burnt the address's TRX, books no stranger's TRX from a backend still before the burn", async () => {
    // A day of blocks: the staking account's energy used by the sweeps before is back.
    node.mineEmpty(DAY_OF_BLOCKS);
    const address = await paidSession('8');
    node.setTrxBalance(address, 2n * TRX);
    const transferSent = async () => {
      const sweep = await newest(address);
      return sweep !== undefined && (await stepsOf(sweep.id)).some((s) => s.step === 'transfer');
    };
    await drive(transferSent);
    // The transfer needs more energy than lent (a new holder), and energy got cheaper since its
    // fee_limit was set: it burns the address's TRX for what the lent energy lacks.
    const hotHeld = node.tokenBalance(USDT, HOT);
    const energyFee = node.chainParameter('getEnergyFee');
    node.setTokenBalance(USDT, HOT, 0n);
    node.setChainParameter('getEnergyFee', Math.floor(energyFee / 2));
    try {
      node.mineBroadcasts();
    } finally {
      node.setChainParameter('getEnergyFee', energyFee);
      node.setTokenBalance(USDT, HOT, hotHeld);
    }
    node.mineEmpty(SOLIDIFY);
    await drive(ended(address));
    const [burning] = await sweepsOf(address);
    expect(burning.error_reason).toContain('OUT_OF_ENERGY');
    const burnt = 2n * TRX - node.trxBalance(address)!;
    expect(burnt).toBeGreaterThan(0n);
    const stranger = await linesOf(`unmatched_native:TRON:${address}:%`);
    expect(stranger).toEqual([
      { account: 'deposits:TRON:TRX', amount: '2.000000000000000000' },
      { account: 'unmatched:TRON:TRX', amount: '-2.000000000000000000' },
    ]);

    // A day later (its free bandwidth back), a backend still before the burn answers the
    // solidity API's account: 2 TRX.
    node.mineEmpty(DAY_OF_BLOCKS);
    // A node without balance history (wallet/getaccountbalance off) waits, and says so.
    node.unavailablePaths.add('/wallet/getaccountbalance');
    try {
      expect(await sweeps().run('TRON')).toMatchObject({ deferredTrxRead: 1, sweeps: [] });
      const [status] = await engine.get(SweepStatus).report('TRON');
      expect(status.waiting_for_trx_read.map((row) => row.address)).toEqual([address]);
    } finally {
      node.unavailablePaths.delete('/wallet/getaccountbalance');
    }
    expect(await sweepsOf(address)).toHaveLength(1);
    node.staleSolidTrx.set(address, 2n * TRX);
    try {
      await drive(async () => (await sweepsOf(address)).length === 2 && (await ended(address)()));
    } finally {
      node.staleSolidTrx.delete(address);
    }
    expect((await newest(address))!.status).toBe('Completed');
    // The burnt TRX is not booked again as a stranger's: the books hold what the address holds.
    expect(await linesOf(`unmatched_native:TRON:${address}:%`)).toEqual(stranger);
    const [{ booked }] = await api.dataSource.query(
      `SELECT COALESCE(sum(l.amount), 0)::text AS booked
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE l.account = 'deposits:TRON:TRX'
          AND (e.reference LIKE $2 OR e.reference IN (
                SELECT 'network_fee:TRON:' || a.tx_hash FROM sweep_attempts a
                  JOIN sweep_items i ON i.sweep_id = a.sweep_id WHERE i.address = $1))`,
      [address, `unmatched_native:TRON:${address}:%`],
    );
    expect(sun(booked)).toBe(node.trxBalance(address));
  });
});
