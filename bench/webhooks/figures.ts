import { distribution, Distribution, round } from '../kit/stats';
import type { EventRow } from './database';
import type { Arrival } from './receiver';

/*
 * One phase's figures from three sources on one clock: events.created_at (the status change, in
 * its transaction), the receiver's arrival times, and the measured window [from, to).
 */

export interface Window {
  from: number;
  to: number;
}

export interface DeliveryFigures {
  /** Events committed with created_at in the window, per second. */
  generatedPerSecond: number;
  /** First arrivals of live deliveries in the window, per second: the headline. */
  deliveredPerSecond: number;
  /** The same, second by second. */
  deliveredTimeline: number[];
  /** events.created_at -> first arrival, for live deliveries of events created in the window. */
  latencyMs: Distribution;
  /** The same, p99 of the events created in each second of the window: when the tail happened. */
  p99Timeline: number[];
  /** Live deliveries (event x live endpoint) of the whole phase. */
  expected: number;
  received: number;
  /** Never received (by the end of the drain), received more than once, or not ours at all. */
  missing: number;
  duplicates: number;
  unexpected: number;
  /** Requests that reached the dead endpoints in the window (hanging ones record them). */
  deadArrivalsInWindow: number;
}

/**
 * `endpointOf` names the live endpoint (receiver key) each live merchant's events go to;
 * events of other merchants (the dead ones) have none.
 */
export function deliveryFigures(
  window: Window,
  events: EventRow[],
  arrivals: Arrival[],
  endpointOf: Map<string, string>,
): DeliveryFigures {
  const seconds = (window.to - window.from) / 1000;
  const inWindow = (at: number) => at >= window.from && at < window.to;
  const firstArrival = new Map<string, number>();
  const arrivalsOf = new Map<string, number>();
  const liveArrivals = arrivals.filter((arrival) => arrival.endpoint.startsWith('live-'));
  for (const arrival of liveArrivals) {
    const key = `${arrival.endpoint} ${arrival.id}`;
    arrivalsOf.set(key, (arrivalsOf.get(key) ?? 0) + 1);
    firstArrival.set(key, Math.min(firstArrival.get(key) ?? Infinity, arrival.at));
  }

  const latencies: number[] = [];
  const bySecond: number[][] = Array.from({ length: Math.ceil(seconds) }, () => []);
  const expectedKeys = new Set<string>();
  for (const event of events) {
    const endpoint = endpointOf.get(event.merchantId);
    if (!endpoint) continue;
    const key = `${endpoint} ${event.id}`;
    expectedKeys.add(key);
    const at = firstArrival.get(key);
    if (at !== undefined && inWindow(event.createdAt)) {
      latencies.push(at - event.createdAt);
      bySecond[Math.floor((event.createdAt - window.from) / 1000)].push(at - event.createdAt);
    }
  }
  const firsts = [...firstArrival.values()].filter(inWindow);
  const timeline = Array.from({ length: Math.ceil(seconds) }, () => 0);
  for (const at of firsts) timeline[Math.floor((at - window.from) / 1000)]++;

  return {
    generatedPerSecond: round(events.filter((event) => inWindow(event.createdAt)).length / seconds),
    deliveredPerSecond: round(firsts.length / seconds),
    deliveredTimeline: timeline,
    latencyMs: distribution(latencies),
    p99Timeline: bySecond.map((values) => (values.length ? distribution(values).p99 : 0)),
    expected: expectedKeys.size,
    received: [...expectedKeys].filter((key) => firstArrival.has(key)).length,
    missing: [...expectedKeys].filter((key) => !firstArrival.has(key)).length,
    duplicates: [...arrivalsOf.values()].reduce((sum, count) => sum + count - 1, 0),
    unexpected: [...firstArrival.keys()].filter((key) => !expectedKeys.has(key)).length,
    deadArrivalsInWindow: arrivals.filter(
      (arrival) => !arrival.endpoint.startsWith('live-') && inWindow(arrival.at),
    ).length,
  };
}
