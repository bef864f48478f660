import { createMerchant } from '../kit/database';
import { sendAndWaitMined } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import { pollUntil } from '../kit/poll';
import { distribution, round, shuffledIndexes } from '../kit/stats';
import {
  BenchSession,
  insertSessions,
  paidAmong,
  paidAtBySession,
  randomSessions,
} from './database';
import { BenchContext, detectionSplit, openWindow, STATUS_POLL_MS } from './measure';
import { appEnvironment } from './settings';
import type { Worker } from './worker';

/*
 * Phase 1: detection latency. One payment at a time; for each, the time from "the block is mined"
 * (its receipt exists) to "the session reads Paid in PostgreSQL".
 */

export type LatencyResult = Awaited<ReturnType<typeof measureLatency>>;

// The reorg window fills with payments over the run, and a tick that had to re-check each of
// them would grow: the median tick of the first and of the last few payments shows it.
const GROWTH_SAMPLES = 5;

export async function measureLatency(context: BenchContext, worker: Worker, payments: number) {
  const { db, step } = context;
  const { label, pollIntervalMs } = worker;
  const merchantId = createMerchant(appEnvironment(), `Bench latency ${label}`).id;
  const sessions = randomSessions(payments, `lat${worker.scanIntervalMs ?? 'default'}_`);
  await insertSessions(db, { merchantId, tokenContract: context.tokenContract, sessions });
  step(`latency (${label}, polls every ${pollIntervalMs} ms): ${payments} payments, one at a time`);

  const window = openWindow(context, worker);
  const observed = await payOneByOne(context, worker, sessions);
  const { cpu, rpc, sql } = await window.close();
  const paidAt = await paidAtBySession(
    db,
    sessions.map((session) => session.id),
  );
  const samples = observed.map((item) => ({
    sessionId: item.session.id,
    blockNumber: item.blockNumber,
    ...detectionSplit(item.minedAt, item.paidSeenAt, paidAt.get(item.session.id), 1),
    // eth_sendRawTransaction -> receipt: how far "mined" could be off.
    sendToReceiptMs: round(item.minedAt - item.sentAt),
  }));
  const of = (part: typeof samples, key: Exclude<keyof (typeof samples)[number], 'sessionId'>) =>
    distribution(part.map((sample) => sample[key]));
  const size = Math.min(GROWTH_SAMPLES, samples.length);
  const result = {
    /** "default" (DEPOSIT_SCAN_INTERVAL_MS not set) or the interval set, e.g. "500 ms". */
    label,
    scanIntervalMs: worker.scanIntervalMs,
    pollIntervalMs,
    payments,
    latencyMs: of(samples, 'latencyMs'),
    waitForTickMs: of(samples, 'waitForTickMs'),
    tickMs: of(samples, 'tickMs'),
    tickGrowthMs: {
      first: of(samples.slice(0, size), 'tickMs').p50,
      last: of(samples.slice(-size), 'tickMs').p50,
    },
    sendToReceiptMs: of(samples, 'sendToReceiptMs'),
    rpc,
    cpu,
    sql,
    merchantId,
    /** What was paid, for the verification at the end (not in the JSON). */
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
async function payOneByOne(context: BenchContext, worker: Worker, sessions: BenchSession[]) {
  const strata = shuffledIndexes(sessions.length);
  const observed = [];
  for (const [index, session] of sessions.entries()) {
    const raw = await context.payer.sign(session.payAddress, session.amount);
    await sleep(((strata[index] + Math.random()) / sessions.length) * worker.pollIntervalMs);
    const mined = await sendAndWaitMined(context.rpc, raw);
    const paid = async () => (await paidAmong(context.db, [session.id])).length > 0;
    const timeoutMs = 3 * worker.pollIntervalMs + 30_000;
    if (!(await pollUntil(paid, { timeoutMs, pollMs: STATUS_POLL_MS, child: worker.process }))) {
      throw new Error(`Session ${session.id} was not Paid in time; see the worker log.`);
    }
    observed.push({ session, ...mined, paidSeenAt: timestamp() });
  }
  return observed;
}
