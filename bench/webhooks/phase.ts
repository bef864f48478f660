import type { Client } from 'pg';
import { timestamp } from '../kit/clock';
import { pollUntil } from '../kit/poll';
import type { TrackedProcess } from '../kit/processes';
import { Api, callApi } from '../kit/services';
import { Generator, offer, Receiver } from './children';
import {
  attemptsOf,
  claimScan,
  events,
  leasedDeliveries,
  pendingDeliveries,
  resetOutbox,
  seedBacklog,
} from './database';
import { deliveryFigures } from './figures';
import type { Bucket } from './generator';
import { measureWindow } from './measure';
import type { BenchOptions, PhaseKind } from './options';
import { payoutCreatedEvent } from './payout-event';
import type { Target, Targets } from './setup';

/*
 * One phase: the outbox emptied, events offered for warm-up + duration seconds, the window after
 * the warm-up measured, then the live backlog drained and the dead endpoints switched off, so the
 * next phase starts alike.
 */

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

export type PhaseResult = Awaited<ReturnType<typeof runPhase>>;

// Time for the generator to get the request before the phase's time zero.
const START_DELAY_MS = 300;
const DRAIN_TIMEOUT_MS = 60_000;
const POLL_MS = 100;
// A hanging endpoint's requests end when released; those queued behind them fail at once.
const SETTLE_TIMEOUT_MS = 30_000;

export async function runPhase(context: PhaseContext, spec: PhaseSpec) {
  const { db, options, receiver, targets } = context;
  const dead = spec.dead ? targets[spec.dead] : [];
  const liveIds = targets.live.map((target) => target.endpoint.id);
  const deadIds = dead.map((target) => target.endpoint.id);
  // The dead endpoints' share of a dead phase's events is on top of the live rate.
  const share = options.deadSharePercent;
  const deadRate = dead.length ? Math.round((spec.liveRate * share) / (100 - share)) : 0;
  const buckets: Bucket[] = [
    { rate: spec.liveRate, merchantIds: targets.live.map((target) => target.merchant.id) },
    ...(deadRate
      ? [{ rate: deadRate, merchantIds: dead.map((target) => target.merchant.id) }]
      : []),
  ];

  await resetOutbox(db);
  if (spec.backlog) await seedDeadBacklog(db, dead, spec.backlog, deadRate);
  await receiver.ask('collect'); // nothing should be there; a straggler must not count here
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
  const generated = offer(context.generator, {
    startAt,
    seconds: options.warmupSeconds + options.durationSeconds,
    buckets,
    maxInFlight: options.inFlight,
  });

  const measures = await measureWindow(window, context.pids, context.worker);
  /** Pending deliveries when the window closed: the backlog left behind. */
  const backlogAtEnd = {
    live: await pendingDeliveries(db, liveIds),
    dead: await pendingDeliveries(db, deadIds),
  };
  /** The claim's search for due rows at the window's end, dead endpoints skipped. */
  const scan = await claimScan(db, deadIds);
  const generator = await generated;
  /**
   * From the window's end until the live backlog was gone, dead endpoints still there (null: not
   * within a minute: the worker was starved; the rest went out once they were switched off).
   */
  const drainMs = await drain(db, liveIds, window.to);
  if (dead.length) await switchOff(context, dead);
  const drained = drainMs !== null || (await drain(db, liveIds, timestamp())) !== null;
  const collected = await receiver.ask('collect');
  const endpointOf = new Map(
    targets.live.map((target) => [target.merchant.id, target.receiverKey] as const),
  );
  const figures = deliveryFigures(window, await events(db), collected.arrivals, endpointOf);
  /** All attempts at live endpoints in the phase; at dead ones, those that ended in the window. */
  const attempts = {
    live: await attemptsOf(db, liveIds),
    dead: await attemptsOf(db, deadIds, window),
  };

  const failures: string[] = [];
  if (generator.failed) {
    failures.push(`${generator.failed} status changes failed: ${generator.errors.join('; ')}`);
  }
  // Starved by the dead endpoints: what is left must still go out once they are off.
  if (!drained) failures.push('live deliveries still pending after the dead endpoints were off');
  if (figures.missing) failures.push(`${figures.missing} live deliveries never received`);
  if (figures.duplicates) failures.push(`${figures.duplicates} live deliveries received twice`);
  if (figures.unexpected) failures.push(`${figures.unexpected} requests for unknown events`);
  if (collected.mismatches) {
    failures.push(`${collected.mismatches} bodies not matching webhook-id`);
  }
  if (attempts.live.failed) {
    failures.push(
      `${attempts.live.failed} failed attempts at live endpoints: ` +
        JSON.stringify(attempts.live.errors),
    );
  }
  const { p50, p99, count } = figures.latencyMs;
  context.step(
    `${spec.name}: delivered ${figures.deliveredPerSecond}/s, latency p50/p99 ` +
      `${count ? `${p50} / ${p99}` : '-'} ms` +
      (failures.length ? `; FAIL: ${failures.join('; ')}` : ''),
  );
  const iso = (at: number) => new Date(at).toISOString();
  return {
    ...spec,
    /** The phase's time zero (its first events) and its measured window, ISO 8601. */
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
    /** Bodies whose id differs from their webhook-id header. */
    mismatches: collected.mismatches,
    /** Kept for the signature check at the end; not written to the JSON. */
    samples: collected.samples,
    failures,
  };
}

/**
 * `rate` events a second for `seconds` to the live merchants, each delivered. At 1/s per merchant
 * it is the probe that the worker is up and delivering (it has no other sign of readiness); at the
 * phases' rate, the warm-up that leaves no cold start to the first phase (JIT, connection pools,
 * keep-alive sockets). Nothing of it is measured.
 */
export async function warmUp(
  context: Pick<PhaseContext, 'db' | 'worker' | 'generator' | 'receiver' | 'targets'>,
  load: { rate: number; seconds: number; inFlight: number },
): Promise<void> {
  const { db, targets } = context;
  await resetOutbox(db);
  const stats = await offer(context.generator, {
    startAt: timestamp(),
    seconds: load.seconds,
    buckets: [{ rate: load.rate, merchantIds: targets.live.map((target) => target.merchant.id) }],
    maxInFlight: load.inFlight,
  });
  if (stats.failed) throw new Error(`Writing warm-up events failed: ${stats.errors.join('; ')}`);
  const liveIds = targets.live.map((target) => target.endpoint.id);
  if ((await drain(db, liveIds, 0, context.worker)) === null) {
    throw new Error(`The worker did not deliver in ${DRAIN_TIMEOUT_MS} ms; see its log.`);
  }
  const { arrivals } = await context.receiver.ask('collect');
  const events = stats.committed.reduce((sum, committed) => sum + committed, 0);
  if (arrivals.length !== events) {
    throw new Error(`Warm-up: ${arrivals.length} requests received for ${events} events.`);
  }
}

/**
 * The dead endpoints' backlog, as long as they would have taken to build it at this phase's rate
 * (their events go to them in turns, so they share it).
 */
async function seedDeadBacklog(db: Client, dead: Target[], backlog: number, deadRate: number) {
  const ageSeconds = backlog / Math.max(deadRate, 1);
  const data = payoutCreatedEvent(dead[0].merchant.id, 0).data;
  for (const target of dead) {
    await seedBacklog(db, target.endpoint, Math.floor(backlog / dead.length), ageSeconds, data);
  }
}

/**
 * Until every live delivery has succeeded; ms after `since`, or null past the limit (at once an
 * error if `child` exited).
 */
async function drain(
  db: Client,
  liveIds: string[],
  since: number,
  child?: TrackedProcess,
): Promise<number | null> {
  const none = () => pendingDeliveries(db, liveIds).then((pending) => pending === 0);
  const options = { timeoutMs: DRAIN_TIMEOUT_MS, pollMs: POLL_MS, child };
  if (!(await pollUntil(none, options))) return null;
  return Math.max(Math.round(timestamp() - since), 0);
}

/**
 * Disables the dead endpoints through the API, as a merchant would (their queued deliveries
 * wait), ends the requests held by hanging ones, and waits until the worker holds no lease: then
 * nothing is in flight when the outbox is emptied for the next phase.
 */
async function switchOff(context: PhaseContext, dead: Target[]): Promise<void> {
  for (const { merchant, endpoint } of dead) {
    await callApi(context.api, merchant.apiKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      enabled: false,
    });
  }
  await context.receiver.ask('release');
  const none = () => leasedDeliveries(context.db).then((leased) => leased === 0);
  if (!(await pollUntil(none, { timeoutMs: SETTLE_TIMEOUT_MS, pollMs: POLL_MS }))) {
    throw new Error('Deliveries still in flight after a dead phase.');
  }
}
