import { DATABASE } from './settings';
import { mineQueued, queueTransfers, transactionsPerBlock } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import { BenchContext, STATUS_POLL_MS } from './context';
import { cpuSnapshot, cpuUsage, CpuUsage } from '../kit/cpu';
import {
  BenchSession,
  createMerchant,
  insertSessions,
  paidCount,
  randomSessions,
  settlementTicks,
} from './database';
import { WorkerRpcCalls } from '../kit/rpc-log';
import { TickSql, tickSql } from './sql-trace';
import { shuffledIndexes } from '../kit/stats';
import { readSqlTrace } from '../kit/sql-trace';
import { assertRunning, Worker } from './worker';

/*
 * Phase 2: throughput. Many open sessions, a share of them paid in a burst of full blocks; how
 * long from the last block mined until every paid session reads Paid.
 */

export interface ThroughputSettings {
  sessions: number;
  paid: number;
  perBlock: number;
}

export interface SettlementTick {
  /** Relative to the last block mined: when the tick's transaction started, when it was seen. */
  startedMs: number;
  seenMs: number;
  sessions: number;
}

export interface ThroughputResult extends ThroughputSettings {
  /** The worker's label ("default") and poll interval. */
  worker: string;
  pollIntervalMs: number;
  insertMs: number;
  queueMs: number;
  blocks: number[];
  burstMs: number;
  /** Last block mined -> first / all paid sessions Paid. */
  firstPaidMs: number | null;
  allPaidMs: number | null;
  paymentsPerSecond: number | null;
  /** Payments per second of tick time (from each settling tick's start until it was seen). */
  processingPerSecond: number | null;
  ticks: SettlementTick[];
  rpc: WorkerRpcCalls;
  cpu: CpuUsage;
  sql: TickSql | null;
  /**
   * The seconds after the drain, no new block: the worker only polls the head, with the paid
   * transfers still inside the reorg window.
   */
  afterDrain: { rpc: WorkerRpcCalls; cpu: CpuUsage; sql: TickSql | null };
  merchantId: string;
  paidSessions: BenchSession[];
}

// Generous: a slow machine must still finish (the figures say how slow), not time out.
const DRAIN_TIMEOUT_MS = 300_000;
const AFTER_DRAIN_WINDOW_MS = 5_000;

export async function measureThroughput(
  context: BenchContext,
  worker: Worker,
  settings: ThroughputSettings,
): Promise<ThroughputResult> {
  const { db, step } = context;
  const merchantId = createMerchant('Bench throughput');
  const sessions = randomSessions(settings.sessions, 'tput_');
  const insertStartedAt = timestamp();
  await insertSessions(db, { merchantId, tokenContract: context.tokenContract, sessions });
  const insertMs = timestamp() - insertStartedAt;
  // A production table has planner statistics; a freshly filled one has none yet.
  await db.query('ANALYZE checkout_sessions');
  step(`throughput: ${settings.sessions} open sessions inserted in ${Math.round(insertMs)} ms`);

  const paidSessions = shuffledIndexes(sessions.length)
    .slice(0, settings.paid)
    .map((index) => sessions[index]);
  const raws: string[] = [];
  for (const session of paidSessions) {
    raws.push(await context.payer.sign(session.payAddress, session.amount));
  }
  const queueStartedAt = timestamp();
  const queued = await queueTransfers(context.rpc, raws);
  const queueMs = timestamp() - queueStartedAt;
  step(`throughput: ${raws.length} transfers in the pool (${Math.round(queueMs)} ms), mining`);

  const windowStart = timestamp();
  const rpcMark = context.rpcLog.mark();
  const pid = worker.process.child.pid ?? 0;
  const cpuBefore = cpuSnapshot(DATABASE, { worker: pid, anvil: context.anvilPid });
  const packed = await mineQueued(context.rpc, queued, settings.perBlock);
  const timeline = await waitUntilAllPaid(context, worker, merchantId, settings.paid);
  const cpu = cpuUsage(cpuBefore, cpuSnapshot(DATABASE, { worker: pid, anvil: context.anvilPid }));
  const rpc = await context.rpcLog.workerCallsSince(rpcMark);
  const drainEnd = timestamp();
  const afterDrain = await measureAfterDrain(context, worker);
  const sql = tickSql(await readSqlTrace(worker.process), windowStart, drainEnd);

  const ticks = toSettlementTicks(
    await settlementTicks(db, merchantId),
    timeline,
    packed.lastMinedAt,
  );
  const allPaidAt = timeline.find((point) => point.paid >= settings.paid)?.at ?? null;
  const firstPaidAt = timeline.find((point) => point.paid > 0)?.at ?? null;
  const allPaidMs = allPaidAt === null ? null : allPaidAt - packed.lastMinedAt;
  const tickSeconds = ticks.reduce((sum, tick) => sum + (tick.seenMs - tick.startedMs), 0) / 1000;
  const result: ThroughputResult = {
    ...settings,
    worker: worker.label,
    pollIntervalMs: worker.pollIntervalMs,
    insertMs: Math.round(insertMs),
    queueMs: Math.round(queueMs),
    blocks: await transactionsPerBlock(context.rpc, packed.firstBlock, packed.blocks),
    burstMs: Math.round(packed.burstMs),
    firstPaidMs: firstPaidAt === null ? null : Math.round(firstPaidAt - packed.lastMinedAt),
    allPaidMs: allPaidMs === null ? null : Math.round(allPaidMs),
    paymentsPerSecond: allPaidMs === null ? null : round(settings.paid / (allPaidMs / 1000)),
    processingPerSecond:
      allPaidMs === null || tickSeconds <= 0 ? null : round(settings.paid / tickSeconds),
    ticks,
    rpc,
    cpu,
    sql,
    afterDrain,
    merchantId,
    paidSessions,
  };
  step(
    `throughput: all ${settings.paid} Paid ${result.allPaidMs ?? '(never)'} ms after the last ` +
      `block; ${result.paymentsPerSecond ?? '-'} payments/s`,
  );
  return result;
}

interface TimelinePoint {
  at: number;
  paid: number;
}

/** Polls the merchant's Paid count; keeps a point each time it changes. */
async function waitUntilAllPaid(
  context: BenchContext,
  worker: Worker,
  merchantId: string,
  expected: number,
): Promise<TimelinePoint[]> {
  const timeline: TimelinePoint[] = [];
  const deadline = timestamp() + DRAIN_TIMEOUT_MS;
  let last = -1;
  while (last < expected && timestamp() < deadline) {
    assertRunning(worker);
    const paid = await paidCount(context.db, merchantId);
    if (paid !== last) timeline.push({ at: timestamp(), paid });
    last = paid;
    if (paid < expected) await sleep(STATUS_POLL_MS);
  }
  if (last < expected) context.step(`throughput: only ${last} of ${expected} Paid: timed out`);
  return timeline;
}

/** Right after the drain: no new block (only head polls), 1,000 fresh transfers in the window. */
async function measureAfterDrain(
  context: BenchContext,
  worker: Worker,
): Promise<ThroughputResult['afterDrain']> {
  const pid = worker.process.child.pid ?? 0;
  const rpcMark = context.rpcLog.mark();
  const cpuBefore = cpuSnapshot(DATABASE, { worker: pid, anvil: context.anvilPid });
  const start = timestamp();
  await sleep(AFTER_DRAIN_WINDOW_MS);
  const cpu = cpuUsage(cpuBefore, cpuSnapshot(DATABASE, { worker: pid, anvil: context.anvilPid }));
  const rpc = await context.rpcLog.workerCallsSince(rpcMark);
  return { rpc, cpu, sql: tickSql(await readSqlTrace(worker.process), start, timestamp()) };
}

/** Joins each settling tick (paid_at) with the moment its sessions were first seen Paid. */
function toSettlementTicks(
  ticks: Array<{ startedAt: number; sessions: number }>,
  timeline: TimelinePoint[],
  lastMinedAt: number,
): SettlementTick[] {
  let cumulative = 0;
  return ticks.map((tick) => {
    cumulative += tick.sessions;
    const seenAt = timeline.find((point) => point.paid >= cumulative)?.at ?? NaN;
    return {
      startedMs: Math.round(tick.startedAt - lastMinedAt),
      seenMs: Math.round(seenAt - lastMinedAt),
      sessions: tick.sessions,
    };
  });
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
