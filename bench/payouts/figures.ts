import type { MinedReceipt } from '../kit/chain-reads';
import type { HeadTracker } from '../kit/heads';
import { distribution, Distribution } from '../kit/stats';
import type { PayoutTimes } from './journal';
import type { RequestRecord } from './load';

/*
 * The figures of one phase, from the requests (the client's clock), the journal (PostgreSQL's
 * now() of each transaction) and the chain (each transaction's block, and when the head tracker
 * first saw that block). One machine, one clock.
 */

export interface Rate {
  count: number;
  /** From the first request sent (unless said otherwise) to the last event of the kind. */
  seconds: number | null;
  perSecond: number | null;
}

export interface Figures {
  /** Payouts asked for. */
  payouts: number;
  /** Payouts created (201s), per second; requests (a batch is one) and their latency. */
  api: Rate & { requests: number; failed: number; errors: string[]; latencyMs: Distribution };
  /** Payouts whose first transaction a node accepted: Processing, on the wire. */
  broadcast: Rate & {
    /** Most first broadcasts within one second of the phase. */
    peakPerSecond: number;
    /** Between the first and the last broadcast: the rate once the worker is busy. */
    steadyPerSecond: number | null;
    /**
     * From the last answer to the last broadcast: the workers' own rate on the backlog the API
     * left, nothing being created (perSecond null with fewer than 10 such broadcasts).
     */
    afterCreation: Rate;
  };
  completed: Rate;
  /** From the request being sent, in ms. */
  latencyMs: { toBroadcast: Distribution; toCompleted: Distribution };
  /**
   * Where the time goes, in ms: request -> 201 read -> a worker's claim transaction starts (it then
   * waits for the hot wallet's row lock, signs, commits) -> broadcast -> mined -> Completed. The job
   * is enqueued before the 201 is sent, so a claim can come first.
   */
  stagesMs: Record<
    | 'requestToAnswered'
    | 'answeredToSigned'
    | 'signedToBroadcast'
    | 'broadcastToMined'
    | 'minedToCompleted',
    Distribution
  >;
  /** Blocks: the transaction's block minus the head when the request was sent. */
  blocks: { toMined: Distribution; toCompleted: Distribution };
  /** First attempts broadcast more than once, and payouts with more than one attempt. */
  rebroadcast: number;
  replaced: number;
  /** Per second since the first request: first broadcasts and completions. */
  timeline: { broadcast: number[]; completed: number[] };
}

const ERRORS_KEPT = 5;
const AFTER_CREATION_MIN = 10;

/** One payout seen from the three sides. */
interface Sample {
  payout: PayoutTimes;
  record: RequestRecord;
  block: number | null;
  /** When its block was first seen. */
  minedAt: number | null;
}

type Moment = (sample: Sample) => number | null;

export function figures(
  records: RequestRecord[],
  times: PayoutTimes[],
  mined: Map<string, MinedReceipt>,
  head: HeadTracker,
): Figures {
  const start = Math.min(...records.map((record) => record.startedAt));
  const lastAnswer = Math.max(...records.map((record) => record.endedAt));
  const recordOf = new Map(records.flatMap((record) => record.payoutIds.map((id) => [id, record])));
  const created = recordOf.size;
  const payouts = records.reduce((sum, record) => sum + record.items, 0);
  const samples: Sample[] = times.map((payout) => {
    const block = payout.txHash ? (mined.get(payout.txHash)?.blockNumber ?? null) : null;
    const record = recordOf.get(payout.id) as RequestRecord;
    return { payout, record, block, minedAt: block === null ? null : head.seenAt(block) };
  });
  const span = (from: Moment, to: Moment) =>
    distribution(defined(samples.map((s) => difference(from(s), to(s)))));
  const blocksTo = (block: Moment) =>
    distribution(defined(samples.map((s) => difference(s.record.headAtStart, block(s)))));
  const requested: Moment = (s) => s.record.startedAt;
  const answered: Moment = (s) => s.record.endedAt;
  const signed: Moment = (s) => s.payout.signedAt;
  const broadcast: Moment = (s) => s.payout.broadcastAt;
  const minedAt: Moment = (s) => s.minedAt;
  const completed: Moment = (s) => s.payout.completedAt;

  const broadcastAts = defined(times.map((payout) => payout.broadcastAt));
  const completedAts = defined(times.map((payout) => payout.completedAt));
  const firstBroadcast = broadcastAts.length ? Math.min(...broadcastAts) : null;
  const lastBroadcast = broadcastAts.length ? Math.max(...broadcastAts) : null;
  const afterCreation = rate(
    broadcastAts.filter((at) => at > lastAnswer).length,
    lastAnswer,
    lastBroadcast,
  );
  return {
    payouts,
    api: {
      ...rate(created, start, lastAnswer),
      requests: records.length,
      failed: payouts - created,
      errors: records
        .filter((record) => record.error !== null)
        .slice(0, ERRORS_KEPT)
        .map((record) => `${record.status || 'no answer'} ${record.error}`),
      latencyMs: distribution(records.map((record) => record.endedAt - record.startedAt)),
    },
    broadcast: {
      ...rate(broadcastAts.length, start, lastBroadcast),
      peakPerSecond: Math.max(0, ...perSecond(broadcastAts, start)),
      steadyPerSecond:
        firstBroadcast !== null && lastBroadcast !== null && lastBroadcast > firstBroadcast
          ? round((broadcastAts.length - 1) / ((lastBroadcast - firstBroadcast) / 1000))
          : null,
      afterCreation: {
        ...afterCreation,
        perSecond: afterCreation.count < AFTER_CREATION_MIN ? null : afterCreation.perSecond,
      },
    },
    completed: rate(
      completedAts.length,
      start,
      completedAts.length ? Math.max(...completedAts) : null,
    ),
    latencyMs: { toBroadcast: span(requested, broadcast), toCompleted: span(requested, completed) },
    stagesMs: {
      requestToAnswered: span(requested, answered),
      answeredToSigned: span(answered, signed),
      signedToBroadcast: span(signed, broadcast),
      broadcastToMined: span(broadcast, minedAt),
      minedToCompleted: span(minedAt, completed),
    },
    blocks: {
      toMined: blocksTo((s) => s.block),
      toCompleted: blocksTo((s) =>
        s.payout.completedAt === null ? null : head.headAt(s.payout.completedAt),
      ),
    },
    rebroadcast: times.filter((payout) => payout.firstAttemptBroadcasts > 1).length,
    replaced: times.filter((payout) => payout.attempts > 1).length,
    timeline: {
      broadcast: perSecond(broadcastAts, start),
      completed: perSecond(completedAts, start),
    },
  };
}

function rate(count: number, start: number, end: number | null): Rate {
  if (end === null || end <= start || !count) return { count, seconds: null, perSecond: null };
  const seconds = (end - start) / 1000;
  return { count, seconds: round(seconds), perSecond: round(count / seconds) };
}

/** How many of the moments fall in each second since `start`. */
function perSecond(moments: number[], start: number): number[] {
  const counts: number[] = [];
  for (const moment of moments) {
    const second = Math.max(Math.floor((moment - start) / 1000), 0);
    while (counts.length <= second) counts.push(0);
    counts[second]++;
  }
  return counts;
}

function difference(from: number | null, to: number | null): number | null {
  return from === null || to === null ? null : to - from;
}

function defined(values: Array<number | null>): number[] {
  return values.filter((value): value is number => value !== null);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
