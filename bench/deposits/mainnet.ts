import type { Client } from 'pg';
import { DEVNET_CHAIN_ID } from '../../test/support/devnet';
import {
  mintTo,
  setAutomine,
  setIntervalMining,
  spareAccounts,
  waitForReceipt,
} from '../kit/chain';
import { transferLogs } from '../kit/chain-reads';
import { sleep, timestamp } from '../kit/clock';
import { createMerchant } from '../kit/database';
import { HeadTracker } from '../kit/heads';
import { assertRunning } from '../kit/processes';
import type { WorkerRpcCalls } from '../kit/rpc-log';
import { distribution, round, shuffledIndexes } from '../kit/stats';
import {
  BenchSession,
  cursorBlock,
  insertSessions,
  paidAmong,
  paidAtBySession,
  randomSessions,
} from './database';
import { ForeignLoad, MAX_FOREIGN_TRANSFER_BASE_UNITS } from './foreign-load';
import { BenchContext, detectionSplit, openWindow, STATUS_POLL_MS } from './measure';
import { appEnvironment, CONFIRMATIONS, TARGETS } from './settings';
import type { Worker } from './worker';

/*
 * Phase 3: a mainnet-shaped chain. anvil mines a block every second (interval mining), and every
 * block carries `foreignPerBlock` token transfers between addresses that are not ours (the
 * watcher's eth_getLogs returns them all and it must throw them away), while our sessions are paid
 * at random moments. Measured over a fixed window after a warm-up: detection latency, how far the
 * watcher's cursor trails the head, the worker's RPC calls per block and its CPU.
 */

export interface MainnetSettings {
  seconds: number;
  payments: number;
  foreignPerBlock: number;
  blockTimeSeconds: number;
}

/** What the phase prepared before its worker starts (the worker must not see the minting). */
export type MainnetPreparation = Awaited<ReturnType<typeof prepareMainnet>>;
export type MainnetResult = Awaited<ReturnType<typeof measureMainnet>>;

// anvil's spare unlocked accounts that send the foreign transfers (nonces per sender stay low).
const FOREIGN_SENDERS = 4;
// Blocks before the window: the first full ticks with 200 logs each, JIT, the sender's pace.
const WARM_UP_SECONDS = 10;
const LAG_SAMPLE_MS = 200;
// No payment in the last seconds of the window: each is normally Paid inside it.
const LAST_PAYMENT_MARGIN_MS = 3_000;
// After the window, for a payment still not Paid (the figures will show it).
const PAID_TIMEOUT_MS = 60_000;
const RECEIPT_TIMEOUT_MS = 30_000;

/** The merchant, its sessions, and tokens for the foreign senders (on the automining devnet). */
export async function prepareMainnet(context: BenchContext, settings: MainnetSettings) {
  const merchantId = createMerchant(appEnvironment(), 'Bench mainnet-shaped').id;
  // Three open sessions per paid one: the unpaid must stay untouched among the foreign traffic.
  const sessions = randomSessions(settings.payments * 3, 'main_');
  await insertSessions(context.db, { merchantId, tokenContract: context.tokenContract, sessions });
  const paid = shuffledIndexes(sessions.length)
    .slice(0, settings.payments)
    .map((index) => sessions[index]);
  const senders = spareAccounts(FOREIGN_SENDERS);
  const seconds = WARM_UP_SECONDS + settings.seconds + PAID_TIMEOUT_MS / 1000;
  const blocks = Math.ceil(seconds / settings.blockTimeSeconds) + 10;
  const perSender = Math.ceil(settings.foreignPerBlock / senders.length);
  await mintTo(
    context.rpc,
    context.tokenContract,
    senders,
    BigInt(perSender) * BigInt(blocks) * MAX_FOREIGN_TRANSFER_BASE_UNITS,
  );
  return { merchantId, sessions, paid, senders };
}

export async function measureMainnet(
  context: BenchContext,
  worker: Worker,
  prepared: MainnetPreparation,
  settings: MainnetSettings,
) {
  const { rpc, step } = context;
  const heads = await HeadTracker.start(rpc, context.rpcUrl, DEVNET_CHAIN_ID);
  let load: ForeignLoad | null = null;
  let lagSampler: ReturnType<typeof sampleLag> | null = null;
  try {
    await setIntervalMining(rpc, settings.blockTimeSeconds);
    load = await ForeignLoad.start(rpc, heads, context.tokenContract, {
      perBlock: settings.foreignPerBlock,
      blockTimeMs: settings.blockTimeSeconds * 1000,
      senders: prepared.senders,
    });
    const firstBlock = heads.head() + 1;
    step(
      `mainnet-shaped: a block every ${settings.blockTimeSeconds} s, ${settings.foreignPerBlock} ` +
        `foreign transfers in each; ${WARM_UP_SECONDS} s warm-up, then ${settings.seconds} s ` +
        `with ${settings.payments} payments at random moments`,
    );
    await sleep(WARM_UP_SECONDS * 1000);

    const window = openWindow(context, worker);
    const headAtStart = heads.head();
    lagSampler = sampleLag(context.db, heads);
    const payments = payAtRandomMoments(context, worker, prepared.paid, settings.seconds * 1000);
    // A failed payment ends the phase at once; a late one is waited for after the window.
    await Promise.race([sleep(settings.seconds * 1000), payments]);
    await sleep(Math.max(window.startedAt + settings.seconds * 1000 - timestamp(), 0));
    const headAtEnd = heads.head();
    // close() takes the CPU at once; the worker's RPC calls are counted once anvil's log is in.
    const closing = window.close();
    const lag = await lagSampler.stop();
    lagSampler = null;
    const { cpu, rpc: calls, sql, endedAt } = await closing;
    const observed = await payments;
    const foreign = await load.stop();
    load = null;
    const lastBlock = heads.head();
    await setAutomine(rpc);

    const blocks = headAtEnd - headAtStart;
    const logs = await transferLogs(rpc, context.tokenContract, headAtStart + 1, headAtEnd);
    const senders = new Set(prepared.senders.map((sender) => sender.toLowerCase()));
    const perBlock = (filter: (from: string) => boolean) => {
      const counts = [];
      for (let block = headAtStart + 1; block <= headAtEnd; block++) {
        counts.push(logs.filter((log) => log.blockNumber === block && filter(log.from)).length);
      }
      return distribution(counts);
    };
    const announced = heads.blocksBetween(window.startedAt, endedAt);
    const samples = await toSamples(context, heads, observed);
    const of = (key: 'latencyMs' | 'waitForTickMs' | 'tickMs') =>
      distribution(samples.map((sample) => sample[key]));
    const result = {
      ...settings,
      warmUpSeconds: WARM_UP_SECONDS,
      windowSeconds: round((endedAt - window.startedAt) / 1000, 2),
      /** Blocks mined in the window, and the time between consecutive ones. */
      blocks,
      blockIntervalMs: distribution(announced.slice(1).map((b, i) => b.at - announced[i].at)),
      /** Transfer logs of the token per block of the window (foreign + ours), read afterwards. */
      transfersPerBlock: perBlock(() => true),
      foreignPerBlockSeen: perBlock((from) => senders.has(from)),
      foreign,
      latencyMs: of('latencyMs'),
      waitForTickMs: of('waitForTickMs'),
      tickMs: of('tickMs'),
      lag: lagFigures(lag),
      rpc: calls,
      /** The worker's calls per block mined in the window, by method, and all of them. */
      rpcPerBlock: perBlockCalls(calls, blocks),
      cpu,
      /** Worker CPU over the window, in cores (1 = one core busy all the time). */
      workerCores: cpu.ms.worker === null ? null : round(cpu.ms.worker / (cpu.seconds * 1000), 2),
      sql,
      merchantId: prepared.merchantId,
      paid: prepared.paid,
      /** The accounts that sent the foreign transfers, and the blocks they were sent into. */
      foreignSenders: prepared.senders,
      blockRange: { from: firstBlock, to: lastBlock },
      /** Our payments' hashes (lower case): nothing else in blockRange is a session's. */
      paymentTxHashes: observed.map((item) => item.txHash.toLowerCase()),
      samples,
    };
    const { p50, p90, max } = result.latencyMs;
    step(
      `mainnet-shaped: p50 ${p50} ms, p90 ${p90} ms, max ${max} ms; lag max ` +
        `${result.lag.max} blocks; ${result.rpcPerBlock.total} worker RPC calls per block`,
    );
    return result;
  } finally {
    await lagSampler?.stop();
    await load?.stop();
    await heads.stop();
  }
}

interface SentPayment {
  session: BenchSession;
  txHash: string;
  sentAt: number;
}

type Observed = SentPayment & { paidSeenAt: number };

/**
 * Sends each payment at a random moment of the window (uniform, in order), and notes when each
 * session is first seen Paid (all outstanding ones asked in one query every 10 ms).
 */
async function payAtRandomMoments(
  context: BenchContext,
  worker: Worker,
  sessions: BenchSession[],
  windowMs: number,
): Promise<Observed[]> {
  const spread = Math.max(windowMs - LAST_PAYMENT_MARGIN_MS, 0);
  const offsets = sessions.map(() => Math.random() * spread).sort((a, b) => a - b);
  const start = timestamp();
  const outstanding = new Map<string, SentPayment>();
  const observed: Observed[] = [];
  let failure: unknown = null;
  const sending = (async () => {
    for (const [index, session] of sessions.entries()) {
      const raw = await context.payer.sign(session.payAddress, session.amount);
      await sleep(Math.max(start + offsets[index] - timestamp(), 0));
      const sentAt = timestamp();
      const txHash = await context.rpc.call<string>('eth_sendRawTransaction', [raw]);
      outstanding.set(session.id, { session, txHash, sentAt });
    }
  })().catch((error: unknown) => {
    failure = error;
  });
  const deadline = start + windowMs + PAID_TIMEOUT_MS;
  while (observed.length < sessions.length) {
    if (failure) throw failure;
    assertRunning(worker.process);
    if (timestamp() > deadline) {
      throw new Error(
        `mainnet-shaped: ${sessions.length - observed.length} payments not Paid ` +
          `${PAID_TIMEOUT_MS / 1000} s after the window; see the worker log.`,
      );
    }
    if (outstanding.size) {
      const paid = await paidAmong(context.db, [...outstanding.keys()]);
      const seenAt = timestamp();
      for (const id of paid) {
        observed.push({ ...(outstanding.get(id) as SentPayment), paidSeenAt: seenAt });
        outstanding.delete(id);
      }
    }
    await sleep(STATUS_POLL_MS);
  }
  await sending;
  return observed;
}

/** Block of each payment (from its receipt, read afterwards) and when that block was announced. */
async function toSamples(context: BenchContext, heads: HeadTracker, observed: Observed[]) {
  const paidAt = await paidAtBySession(
    context.db,
    observed.map((item) => item.session.id),
  );
  const samples = [];
  for (const item of observed) {
    const receipt = await waitForReceipt(context.rpc, item.txHash, RECEIPT_TIMEOUT_MS);
    if (receipt.status !== '0x1') throw new Error(`Payment ${item.txHash} reverted.`);
    const blockNumber = Number(receipt.blockNumber);
    // The confirming block: the payment's own + confirmations - 1.
    const minedAt = heads.seenAt(blockNumber + CONFIRMATIONS - 1);
    if (minedAt === null) throw new Error(`Block ${blockNumber} was never announced.`);
    samples.push({
      sessionId: item.session.id,
      txHash: item.txHash,
      blockNumber,
      ...detectionSplit(minedAt, item.paidSeenAt, paidAt.get(item.session.id), 2),
      sendToMinedMs: round(minedAt - item.sentAt, 2),
    });
  }
  return samples;
}

/**
 * head (as newHeads announced it) - cursor (from PostgreSQL) about every 200 ms: a fixed 200 ms
 * would sample the same five moments of every 1 s block, so each wait is drawn from 100-300 ms.
 */
function sampleLag(db: Client, heads: HeadTracker) {
  const lags: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = timestamp();
      // The head first: a block announced while the cursor is read cannot be in it anyway.
      const head = heads.head();
      lags.push(Math.max(head - ((await cursorBlock(db)) ?? -1), 0));
      await sleep(Math.max(at + LAG_SAMPLE_MS * (0.5 + Math.random()) - timestamp(), 0));
    }
  })();
  // A failed query ends the sampling; the phase's own error says why.
  const finished = loop.catch(() => undefined);
  return {
    stop: async () => {
      stopped = true;
      await finished;
      return lags;
    },
  };
}

function lagFigures(lags: number[]) {
  const { p50, p90, max } = distribution(lags);
  const overLimit = lags.filter((lag) => lag > TARGETS.maxLagBlocks).length;
  const histogram: Record<string, number> = {};
  for (const lag of lags) histogram[lag] = (histogram[lag] ?? 0) + 1;
  return {
    samples: lags.length,
    /** Samples by lag in blocks. */
    histogram,
    p50,
    p90,
    max,
    /** Samples more than maxLagBlocks behind. */
    overLimit,
    keptUp: lags.length > 0 && overLimit === 0,
  };
}

function perBlockCalls(calls: WorkerRpcCalls, blocks: number): Record<string, number> {
  const all: Record<string, number> = { ...calls.byMethod, ...calls.other };
  const per = (count: number) => (blocks > 0 ? round(count / blocks, 2) : 0);
  const result: Record<string, number> = {};
  for (const [method, count] of Object.entries(all)) result[method] = per(count);
  result.total = per(Object.values(all).reduce((sum, count) => sum + count, 0));
  result.polls = per(calls.polls);
  result.fullTicks = per(calls.fullTicks);
  return result;
}
