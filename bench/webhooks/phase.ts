import type { Client } from 'pg';
import { sleep, timestamp } from '../kit/clock';
import type { Distribution } from '../kit/stats';
import type { Merchant } from '../kit/database';
import type { TrackedProcess } from '../kit/processes';
import { Api, callApi } from '../kit/services';
import {
  Attempts,
  attemptsOf,
  claimScan,
  ClaimScan,
  events,
  leasedDeliveries,
  pendingDeliveries,
  resetOutbox,
  seedBacklog,
} from './database';
import { deliveryFigures, DeliveryFigures } from './figures';
import type { Bucket, Generator, GeneratorStats } from './generator-client';
import type { BenchOptions, PhaseKind } from './options';
import { payoutCreatedEvent } from './payout-event';
import type { Receiver, SignedSample } from './receiver-client';
import { measureWindow, WindowMeasures } from './measure';
import type { Endpoint } from './setup';

/*
 * One phase: the outbox emptied, events offered for warm-up + duration seconds, the window after
 * the warm-up measured, then the live backlog drained and the dead endpoints switched off, so the
 * next phase starts alike.
 */

/** A merchant, its one endpoint, and the receiver's name for that endpoint. */
export interface Target {
  merchant: Merchant;
  endpoint: Endpoint;
  receiverKey: string;
}

export interface Targets {
  live: Target[];
  hanging: Target[];
  refused: Target[];
  /** Hanging too, with a backlog built up before the phase (dead-aged). */
  aged: Target[];
}

export type DeadKind = 'hanging' | 'refused' | 'aged';

export interface PhaseSpec {
  kind: PhaseKind;
  name: string;
  /** Events/s to the live merchants (all phases), and to the dead ones (dead phases). */
  liveRate: number;
  dead: DeadKind | null;
  /** Due deliveries the dead endpoints start with, in all. */
  backlog: number;
}

export interface PhaseContext {
  db: Client;
  api: Api;
  worker: TrackedProcess;
  receiver: Receiver;
  generator: Generator;
  targets: Targets;
  options: BenchOptions;
  /** Processes whose CPU is measured, by name. */
  pids: Record<string, number | null>;
  step: (message: string) => void;
}

export interface PhaseResult extends PhaseSpec, WindowMeasures {
  /** The phase's time zero (its first events) and its measured window, ISO 8601. */
  times: { start: string; windowFrom: string; windowTo: string };
  deadRate: number;
  deadEndpoints: number;
  generator: GeneratorStats;
  figures: DeliveryFigures;
  /** Pending deliveries when the window closed: the backlog left behind. */
  backlogAtEnd: { live: number; dead: number };
  /**
   * From the window's end until the live backlog was gone, dead endpoints still there (null: not
   * within a minute: the worker was starved; the rest went out once they were switched off).
   */
  drainMs: number | null;
  /** All attempts at live endpoints in the phase; at dead ones, those that ended in the window. */
  attempts: { live: Attempts; dead: Attempts };
  /** The claim's search for due rows at the window's end, dead endpoints skipped. */
  claimScan: ClaimScan;
  /** Bodies whose id differs from their webhook-id header. */
  mismatches: number;
  /** Kept for the signature check at the end; not written to the JSON. */
  samples: SignedSample[];
  failures: string[];
}

// Time for the generator to get the request before the phase's time zero.
const START_DELAY_MS = 300;
const DRAIN_TIMEOUT_MS = 60_000;
const POLL_MS = 100;
// A hanging endpoint's requests end when released; those queued behind them fail at once.
const SETTLE_TIMEOUT_MS = 30_000;

/** The dead endpoints' share of a dead phase's events is on top of the live rate. */
function deadRateOf(liveRate: number, sharePercent: number): number {
  return Math.round((liveRate * sharePercent) / (100 - sharePercent));
}

export async function runPhase(context: PhaseContext, spec: PhaseSpec): Promise<PhaseResult> {
  const { db, options, receiver, targets } = context;
  const dead = spec.dead ? targets[spec.dead] : [];
  const liveIds = targets.live.map((target) => target.endpoint.id);
  const deadIds = dead.map((target) => target.endpoint.id);
  const deadRate = dead.length ? deadRateOf(spec.liveRate, options.deadSharePercent) : 0;
  const buckets: Bucket[] = [
    { rate: spec.liveRate, merchantIds: targets.live.map((target) => target.merchant.id) },
    ...(deadRate
      ? [{ rate: deadRate, merchantIds: dead.map((target) => target.merchant.id) }]
      : []),
  ];

  await resetOutbox(db);
  if (spec.backlog) await seedDeadBacklog(db, dead, spec.backlog, deadRate);
  await receiver.collect(); // nothing should be there; a straggler must not count here
  context.step(
    `${spec.name}: ${spec.liveRate} events/s live` +
      (deadRate ? ` + ${deadRate}/s to ${dead.length} ${spec.dead} endpoint(s)` : '') +
      (spec.backlog ? ` (${spec.backlog} due deliveries already waiting)` : '') +
      ` for ${options.warmupSeconds} s warm-up + ${options.durationSeconds} s measured`,
  );
  const startAt = timestamp() + START_DELAY_MS;
  const window = {
    from: startAt + options.warmupSeconds * 1000,
    to: startAt + (options.warmupSeconds + options.durationSeconds) * 1000,
  };
  const generated = context.generator.run({
    startAt,
    seconds: options.warmupSeconds + options.durationSeconds,
    buckets,
    maxInFlight: options.inFlight,
  });

  const measures = await measureWindow(window, context.pids, context.worker);
  const backlogAtEnd = {
    live: await pendingDeliveries(db, liveIds),
    dead: await pendingDeliveries(db, deadIds),
  };
  const scan = await claimScan(db, deadIds);

  const generator = await generated;
  const drainMs = await drain(db, liveIds, window.to);
  if (dead.length) await switchOff(context, dead);
  // Starved by the dead endpoints: what is left must still go out once they are off.
  const drained = drainMs !== null || (await drain(db, liveIds, timestamp())) !== null;
  const collected = await receiver.collect();
  const rows = await events(db);
  const endpointOf = new Map(
    targets.live.map((target) => [target.merchant.id, target.receiverKey] as const),
  );
  const figures = deliveryFigures(window, rows, collected.arrivals, endpointOf);
  const attempts = {
    live: await attemptsOf(db, liveIds),
    dead: await attemptsOf(db, deadIds, window),
  };
  const iso = (at: number) => new Date(at).toISOString();
  const result: PhaseResult = {
    ...spec,
    times: { start: iso(startAt), windowFrom: iso(window.from), windowTo: iso(window.to) },
    deadRate,
    deadEndpoints: dead.length,
    generator,
    figures,
    backlogAtEnd,
    drainMs,
    attempts,
    claimScan: scan,
    ...measures,
    mismatches: collected.mismatches,
    samples: collected.samples,
    failures: [],
  };
  result.failures = phaseFailures(result, drained);
  context.step(
    `${spec.name}: delivered ${figures.deliveredPerSecond}/s, latency p50/p99 ` +
      `${latencyText(figures.latencyMs)} ms` +
      (result.failures.length ? `; FAIL: ${result.failures.join('; ')}` : ''),
  );
  return result;
}

/**
 * The dead endpoints' backlog, as long as they would have taken to build it at this phase's rate
 * (their events go to them in turns, so they share it).
 */
async function seedDeadBacklog(
  db: Client,
  dead: Target[],
  backlog: number,
  deadRate: number,
): Promise<void> {
  const ageSeconds = backlog / Math.max(deadRate, 1);
  const data = payoutCreatedEvent(dead[0].merchant.id, 0).data;
  for (const target of dead) {
    await seedBacklog(db, target.endpoint, Math.floor(backlog / dead.length), ageSeconds, data);
  }
}

/** Until every live delivery has succeeded; ms after `since`, or null past the limit. */
async function drain(db: Client, liveIds: string[], since: number): Promise<number | null> {
  const deadline = timestamp() + DRAIN_TIMEOUT_MS;
  while ((await pendingDeliveries(db, liveIds)) > 0) {
    if (timestamp() > deadline) return null;
    await sleep(POLL_MS);
  }
  return Math.max(Math.round(timestamp() - since), 0);
}

/**
 * Disables the dead endpoints through the API (their queue is parked), ends the requests held by
 * hanging ones, and waits until the worker holds no lease: then nothing is in flight when the
 * outbox is emptied for the next phase.
 */
async function switchOff(context: PhaseContext, dead: Target[]): Promise<void> {
  // Its queued deliveries wait (the end of a dead phase).
  for (const { merchant, endpoint } of dead) {
    await callApi(context.api, merchant.apiKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      enabled: false,
    });
  }
  await context.receiver.release();
  const deadline = timestamp() + SETTLE_TIMEOUT_MS;
  while ((await leasedDeliveries(context.db)) > 0) {
    if (timestamp() > deadline) throw new Error('Deliveries still in flight after a dead phase.');
    await sleep(POLL_MS);
  }
}

function phaseFailures(result: PhaseResult, drained: boolean): string[] {
  const { figures, generator, attempts } = result;
  const failures: string[] = [];
  if (generator.failed) {
    failures.push(`${generator.failed} status changes failed: ${generator.errors.join('; ')}`);
  }
  if (!drained) failures.push('live deliveries still pending after the dead endpoints were off');
  if (figures.missing) failures.push(`${figures.missing} live deliveries never received`);
  if (figures.duplicates) failures.push(`${figures.duplicates} live deliveries received twice`);
  if (figures.unexpected) failures.push(`${figures.unexpected} requests for unknown events`);
  if (result.mismatches) failures.push(`${result.mismatches} bodies not matching webhook-id`);
  if (attempts.live.failed) {
    failures.push(
      `${attempts.live.failed} failed attempts at live endpoints: ` +
        JSON.stringify(attempts.live.errors),
    );
  }
  return failures;
}

function latencyText(latency: Distribution): string {
  return latency.count ? `${latency.p50} / ${latency.p99}` : '-';
}
