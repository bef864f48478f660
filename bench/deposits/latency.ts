import { DATABASE } from './settings';
import { sendAndWaitMined } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import { BenchContext, STATUS_POLL_MS } from './context';
import { cpuSnapshot, cpuUsage, CpuUsage } from '../kit/cpu';
import {
  BenchSession,
  createMerchant,
  insertSessions,
  isPaid,
  paidAtBySession,
  randomSessions,
} from './database';
import { WorkerRpcCalls } from '../kit/rpc-log';
import { TickSql, tickSql } from './sql-trace';
import { distribution, Distribution, shuffledIndexes } from '../kit/stats';
import { readSqlTrace } from '../kit/sql-trace';
import { assertRunning, Worker } from './worker';

/*
 * Phase 1: detection latency. One payment at a time; for each, the time from "the block is mined"
 * (its receipt exists) to "the session reads Paid in PostgreSQL".
 */

export interface LatencySample {
  sessionId: string;
  blockNumber: number;
  /** Mined -> Paid visible. */
  latencyMs: number;
  /** Mined -> start of the tick's transaction that settled it (paid_at). */
  waitForTickMs: number;
  /** Start of that transaction -> Paid visible (the tick's work, commit, and up to 10 ms polling). */
  tickMs: number;
  /** eth_sendRawTransaction -> receipt: how far "mined" could be off. */
  sendToReceiptMs: number;
}

export interface LatencyResult {
  /** "default" (DEPOSIT_SCAN_INTERVAL_MS not set) or the interval set, e.g. "500 ms". */
  label: string;
  scanIntervalMs: number | null;
  /** How often the worker asked for the head (as it logged at start). */
  pollIntervalMs: number;
  payments: number;
  latencyMs: Distribution;
  waitForTickMs: Distribution;
  tickMs: Distribution;
  /**
   * Median tick of the first and of the last few payments: the reorg window fills with payments
   * over the run, and a tick that had to re-check each of them would grow.
   */
  tickGrowthMs: { first: number; last: number };
  sendToReceiptMs: Distribution;
  rpc: WorkerRpcCalls;
  cpu: CpuUsage;
  sql: TickSql | null;
  merchantId: string;
  /** What was paid, for the verification at the end. */
  paid: BenchSession[];
  samples: LatencySample[];
}

interface Observed {
  session: BenchSession;
  blockNumber: number;
  sentAt: number;
  minedAt: number;
  paidSeenAt: number;
}

export async function measureLatency(
  context: BenchContext,
  worker: Worker,
  payments: number,
): Promise<LatencyResult> {
  const { db, step } = context;
  const label = worker.label;
  const merchantId = createMerchant(`Bench latency ${label}`);
  const sessions = randomSessions(payments, `lat${worker.scanIntervalMs ?? 'default'}_`);
  await insertSessions(db, { merchantId, tokenContract: context.tokenContract, sessions });
  step(
    `latency (${label}, polls every ${worker.pollIntervalMs} ms): ${payments} payments, one at ` +
      `a time`,
  );

  const rpcMark = context.rpcLog.mark();
  const cpuBefore = cpuSnapshot(DATABASE, {
    worker: worker.process.child.pid ?? 0,
    anvil: context.anvilPid,
  });
  const windowStart = timestamp();
  const observed = await payOneByOne(context, worker, sessions);
  const cpu = cpuUsage(
    cpuBefore,
    cpuSnapshot(DATABASE, { worker: worker.process.child.pid ?? 0, anvil: context.anvilPid }),
  );
  const rpc = await context.rpcLog.workerCallsSince(rpcMark);
  const sql = tickSql(await readSqlTrace(worker.process), windowStart, timestamp());

  const paidAt = await paidAtBySession(
    db,
    sessions.map((session) => session.id),
  );
  const samples = observed.map((item) => toSample(item, paidAt.get(item.session.id)));
  const result: LatencyResult = {
    label,
    scanIntervalMs: worker.scanIntervalMs,
    pollIntervalMs: worker.pollIntervalMs,
    payments,
    latencyMs: distribution(samples.map((sample) => sample.latencyMs)),
    waitForTickMs: distribution(samples.map((sample) => sample.waitForTickMs)),
    tickMs: distribution(samples.map((sample) => sample.tickMs)),
    tickGrowthMs: tickGrowth(samples),
    sendToReceiptMs: distribution(samples.map((sample) => sample.sendToReceiptMs)),
    rpc,
    cpu,
    sql,
    merchantId,
    paid: sessions,
    samples,
  };
  const { p50, p90, max } = result.latencyMs;
  step(`latency (${label}): p50 ${p50} ms, p90 ${p90} ms, max ${max} ms`);
  return result;
}

/**
 * A payment sent right after the previous one was seen Paid lands at the same point of the poll
 * cycle every time (just after a poll), and would always wait about a whole poll interval. Real
 * payments arrive at any moment, so each one first waits a random offset into the poll interval;
 * the offsets are spread evenly (one per stratum, shuffled) so that 30 samples cover the interval
 * without clumping, and runs compare.
 */
async function payOneByOne(
  context: BenchContext,
  worker: Worker,
  sessions: BenchSession[],
): Promise<Observed[]> {
  const interval = worker.pollIntervalMs;
  const strata = shuffledIndexes(sessions.length);
  const observed: Observed[] = [];
  for (const [index, session] of sessions.entries()) {
    const raw = await context.payer.sign(session.payAddress, session.amount);
    await sleep(((strata[index] + Math.random()) / sessions.length) * interval);
    const mined = await sendAndWaitMined(context.rpc, raw);
    const paidSeenAt = await waitUntilPaid(context, worker, session.id);
    observed.push({ session, ...mined, paidSeenAt });
  }
  return observed;
}

async function waitUntilPaid(
  context: BenchContext,
  worker: Worker,
  sessionId: string,
): Promise<number> {
  const deadline = timestamp() + 3 * worker.pollIntervalMs + 30_000;
  while (timestamp() < deadline) {
    assertRunning(worker);
    if (await isPaid(context.db, sessionId)) return timestamp();
    await sleep(STATUS_POLL_MS);
  }
  throw new Error(`Session ${sessionId} was not Paid in time; see the worker log.`);
}

function toSample(item: Observed, settledAt: number | undefined): LatencySample {
  const tickStart = settledAt ?? item.paidSeenAt;
  return {
    sessionId: item.session.id,
    blockNumber: item.blockNumber,
    latencyMs: round(item.paidSeenAt - item.minedAt),
    waitForTickMs: round(tickStart - item.minedAt),
    tickMs: round(item.paidSeenAt - tickStart),
    sendToReceiptMs: round(item.minedAt - item.sentAt),
  };
}

const GROWTH_SAMPLES = 5;

function tickGrowth(samples: LatencySample[]): LatencyResult['tickGrowthMs'] {
  const median = (part: LatencySample[]) => distribution(part.map((sample) => sample.tickMs)).p50;
  const size = Math.min(GROWTH_SAMPLES, samples.length);
  return { first: median(samples.slice(0, size)), last: median(samples.slice(-size)) };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
