import { distribution, Distribution } from '../deposits/stats';
import type { HeadTracker, Receipt } from './chain';
import type { PayoutTimes } from './journal';
import type { RequestRecord } from './load';

/*
 * The figures of one phase, from the requests (the client's clock), the journal (PostgreSQL's
 * now() of each transaction) and the chain (each transaction's block, and when the head tracker
 * first saw that block). One machine, one clock.
 */

export interface Rate {
  count: number;
  /** From the first request sent to the last event of the kind. */
  seconds: number | null;
  perSecond: number | null;
}

export interface Figures {
  payouts: number;
  api: Rate & {
    failed: number;
    /** The first few non-201 answers or errors, for the report. */
    errors: string[];
    latencyMs: Distribution;
  };
  /** Payouts whose first transaction a node accepted: Processing, on the wire. */
  broadcast: Rate & {
    /** Most first broadcasts within one second of the phase. */
    peakPerSecond: number;
    /** Between the first and the last broadcast: the rate once the worker is busy. */
    steadyPerSecond: number | null;
    /**
     * After the last 201 until the last broadcast, when a backlog is left: the worker's rate
     * without the API and the load competing for the cores (null without a backlog).
     */
    afterLoadPerSecond: number | null;
  };
  completed: Rate;
  /** From the request being sent, in ms. */
  latencyMs: { toBroadcast: Distribution; toCompleted: Distribution };
  /**
   * Where the time goes, in ms: request -> 201 read -> a worker's claim transaction starts (it then
   * waits for the hot wallet's row lock, signs, commits) -> broadcast -> mined -> Completed. The job
   * is enqueued before the 201 is sent, so a claim can come first.
   */
  stagesMs: {
    requestToAnswered: Distribution;
    answeredToSigned: Distribution;
    signedToBroadcast: Distribution;
    broadcastToMined: Distribution;
    minedToCompleted: Distribution;
  };
  /** Blocks: the transaction's block minus the head when the request was sent. */
  blocks: { toMined: Distribution; toCompleted: Distribution };
  /** First attempts broadcast more than once, and payouts with more than one attempt. */
  rebroadcast: number;
  replaced: number;
  /** Per second since the first request: first broadcasts and completions. */
  timeline: { broadcast: number[]; completed: number[] };
}

const ERRORS_KEPT = 5;

/** One payout seen from the three sides. */
interface Sample {
  payout: PayoutTimes;
  record: RequestRecord;
  receipt: Receipt | undefined;
  /** When its block was first seen. */
  minedAt: number | null;
}

type Moment = (sample: Sample) => number | null;

const MOMENTS = {
  requested: (sample) => sample.record.startedAt,
  answered: (sample) => sample.record.endedAt,
  signed: (sample) => sample.payout.signedAt,
  broadcast: (sample) => sample.payout.broadcastAt,
  mined: (sample) => sample.minedAt,
  completed: (sample) => sample.payout.completedAt,
} satisfies Record<string, Moment>;

export function figures(
  records: RequestRecord[],
  times: PayoutTimes[],
  mined: Map<string, Receipt>,
  head: HeadTracker,
): Figures {
  const start = Math.min(...records.map((record) => record.startedAt));
  const created = records.filter((record) => record.payoutId !== null);
  const sentAt = new Map(created.map((record) => [record.payoutId as string, record]));
  const lastAnswer = Math.max(...records.map((record) => record.endedAt));

  const broadcastAts = defined(times.map((payout) => payout.broadcastAt));
  const completedAts = defined(times.map((payout) => payout.completedAt));
  const samples: Sample[] = times.map((payout) => {
    const record = sentAt.get(payout.id) as RequestRecord;
    const receipt = payout.txHash ? mined.get(payout.txHash) : undefined;
    return { payout, record, receipt, minedAt: receipt ? head.seenAt(receipt.blockNumber) : null };
  });
  const span = (from: Moment, to: Moment) =>
    distribution(
      defined(
        samples.map((sample) => {
          const [a, b] = [from(sample), to(sample)];
          return a === null || b === null ? null : b - a;
        }),
      ),
    );
  const blocksTo = (block: Moment) =>
    distribution(
      defined(
        samples.map((sample) => {
          const value = block(sample);
          return value === null ? null : value - sample.record.headAtStart;
        }),
      ),
    );
  const lastBroadcast = broadcastAts.length ? Math.max(...broadcastAts) : null;
  const firstBroadcast = broadcastAts.length ? Math.min(...broadcastAts) : null;

  return {
    payouts: records.length,
    api: {
      ...rate(created.length, start, lastAnswer),
      failed: records.length - created.length,
      errors: records
        .filter((record) => record.payoutId === null)
        .slice(0, ERRORS_KEPT)
        .map((record) => `${record.status || 'no answer'} ${record.error ?? ''}`.trim()),
      latencyMs: distribution(records.map((record) => record.endedAt - record.startedAt)),
    },
    broadcast: {
      ...rate(broadcastAts.length, start, lastBroadcast),
      peakPerSecond: Math.max(0, ...perSecond(broadcastAts, start)),
      steadyPerSecond:
        firstBroadcast !== null && lastBroadcast !== null && lastBroadcast > firstBroadcast
          ? round((broadcastAts.length - 1) / ((lastBroadcast - firstBroadcast) / 1000))
          : null,
      afterLoadPerSecond: afterLoad(broadcastAts, lastAnswer),
    },
    completed: rate(
      completedAts.length,
      start,
      completedAts.length ? Math.max(...completedAts) : null,
    ),
    latencyMs: {
      toBroadcast: span(MOMENTS.requested, MOMENTS.broadcast),
      toCompleted: span(MOMENTS.requested, MOMENTS.completed),
    },
    stagesMs: {
      requestToAnswered: span(MOMENTS.requested, MOMENTS.answered),
      answeredToSigned: span(MOMENTS.answered, MOMENTS.signed),
      signedToBroadcast: span(MOMENTS.signed, MOMENTS.broadcast),
      broadcastToMined: span(MOMENTS.broadcast, MOMENTS.mined),
      minedToCompleted: span(MOMENTS.mined, MOMENTS.completed),
    },
    blocks: {
      toMined: blocksTo((sample) => sample.receipt?.blockNumber ?? null),
      toCompleted: blocksTo((sample) =>
        sample.payout.completedAt === null ? null : head.headAt(sample.payout.completedAt),
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

function afterLoad(broadcastAts: number[], lastAnswer: number): number | null {
  const after = broadcastAts.filter((at) => at > lastAnswer);
  // A handful of stragglers say nothing about a rate.
  if (after.length < 10) return null;
  return round(after.length / ((Math.max(...after) - lastAnswer) / 1000));
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

function defined(values: Array<number | null>): number[] {
  return values.filter((value): value is number => value !== null);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
