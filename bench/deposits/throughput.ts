import { mineQueued, queueTransfers, transactionsPerBlock } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import { createMerchant } from '../kit/database';
import { assertRunning } from '../kit/processes';
import { round, shuffledIndexes } from '../kit/stats';
import { insertSessions, paidCount, randomSessions, settlementTicks } from './database';
import { BenchContext, openWindow, STATUS_POLL_MS } from './measure';
import { appEnvironment } from './settings';
import type { Worker } from './worker';

/*
 * Phase 2: throughput. Many open sessions, a share of them paid in a burst of full blocks; how
 * long from the last block mined until every paid session reads Paid.
 */

export type ThroughputResult = Awaited<ReturnType<typeof measureThroughput>>;

// Generous: a slow machine must still finish (the figures say how slow), not time out.
const DRAIN_TIMEOUT_MS = 300_000;
const AFTER_DRAIN_WINDOW_MS = 5_000;

export async function measureThroughput(
  context: BenchContext,
  worker: Worker,
  settings: { sessions: number; paid: number; perBlock: number },
) {
  const { db, step } = context;
  const merchantId = createMerchant(appEnvironment(), 'Bench throughput').id;
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

  const window = openWindow(context, worker);
  const packed = await mineQueued(context.rpc, queued, settings.perBlock);
  // The merchant's Paid count, a point each time it changes.
  const timeline: Array<{ at: number; paid: number }> = [];
  const deadline = timestamp() + DRAIN_TIMEOUT_MS;
  let last = -1;
  while (last < settings.paid && timestamp() < deadline) {
    assertRunning(worker.process);
    const paid = await paidCount(db, merchantId);
    if (paid !== last) timeline.push({ at: timestamp(), paid });
    last = paid;
    if (paid < settings.paid) await sleep(STATUS_POLL_MS);
  }
  if (last < settings.paid) step(`throughput: only ${last} of ${settings.paid} Paid: timed out`);
  const { cpu, rpc, sql } = await window.close();
  // Right after the drain: no new block (only head polls), the paid transfers in the reorg window.
  const idle = openWindow(context, worker);
  await sleep(AFTER_DRAIN_WINDOW_MS);
  const afterDrain = await idle.close();

  // Each settling tick (paid_at) joined with the moment its sessions were first seen Paid.
  let cumulative = 0;
  const ticks = (await settlementTicks(db, merchantId)).map((tick) => {
    cumulative += tick.sessions;
    const seenAt = timeline.find((point) => point.paid >= cumulative)?.at ?? NaN;
    return {
      startedMs: Math.round(tick.startedAt - packed.lastMinedAt),
      seenMs: Math.round(seenAt - packed.lastMinedAt),
      sessions: tick.sessions,
    };
  });
  const allPaidAt = timeline.find((point) => point.paid >= settings.paid)?.at;
  const firstPaidAt = timeline.find((point) => point.paid > 0)?.at;
  const allPaidMs = allPaidAt === undefined ? null : allPaidAt - packed.lastMinedAt;
  const tickSeconds = ticks.reduce((sum, tick) => sum + (tick.seenMs - tick.startedMs), 0) / 1000;
  const result = {
    ...settings,
    worker: worker.label,
    pollIntervalMs: worker.pollIntervalMs,
    insertMs: Math.round(insertMs),
    queueMs: Math.round(queueMs),
    blocks: await transactionsPerBlock(context.rpc, packed.firstBlock, packed.blocks),
    burstMs: Math.round(packed.burstMs),
    /** Last block mined -> first / all paid sessions Paid. */
    firstPaidMs: firstPaidAt === undefined ? null : Math.round(firstPaidAt - packed.lastMinedAt),
    allPaidMs: allPaidMs === null ? null : Math.round(allPaidMs),
    paymentsPerSecond: allPaidMs === null ? null : round(settings.paid / (allPaidMs / 1000)),
    /** Payments per second of tick time (from each settling tick's start until it was seen). */
    processingPerSecond:
      allPaidMs === null || tickSeconds <= 0 ? null : round(settings.paid / tickSeconds),
    ticks,
    rpc,
    cpu,
    sql,
    afterDrain: { rpc: afterDrain.rpc, cpu: afterDrain.cpu, sql: afterDrain.sql },
    merchantId,
    paidSessions,
  };
  step(
    `throughput: all ${settings.paid} Paid ${result.allPaidMs ?? '(never)'} ms after the last ` +
      `block; ${result.paymentsPerSecond ?? '-'} payments/s`,
  );
  return result;
}
