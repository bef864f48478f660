import type { Client } from 'pg';
import { sleep, timestamp } from '../kit/clock';
import { createMerchant } from '../kit/database';
import { assertRunning, TrackedProcess } from '../kit/processes';
import { Api, callApi } from '../kit/services';
import { pendingDeliveries, resetOutbox } from './database';
import type { Generator } from './generator-client';
import type { BenchOptions, PhaseKind } from './options';
import type { Target, Targets } from './phase';
import type { Ports, Receiver } from './receiver-client';
import { benchEnvironment } from './settings';

export interface Endpoint {
  id: string;
  merchantId: string;
  url: string;
  secret: string;
}

/**
 * The merchants (operator CLI) and their endpoints (the API, with each merchant's key): one per
 * live merchant on a port of its own, as every merchant has a host of its own (the worker keeps a
 * connection pool per host), and dead ones only for the phases that run. The hanging ports are
 * shared out: the first `deadEndpoints` for dead-hanging, the next for dead-aged.
 */
export async function createTargets(
  api: Api,
  ports: Ports,
  options: BenchOptions,
): Promise<Targets> {
  const dead = options.deadEndpoints;
  const runs = (kind: PhaseKind) => options.phases.includes(kind);
  const create = async (kind: string, port: number, receiverKey: string, index: number) => {
    const merchant = createMerchant(benchEnvironment(), `Bench webhooks ${kind} ${index}`);
    const url = `http://127.0.0.1:${port}/webhooks/${kind}-${index}`;
    // The secret is only in this answer.
    const endpoint = await callApi<{ id: string; secret: string }>(
      api,
      merchant.apiKey,
      'POST',
      '/v1/webhook-endpoints',
      { url, description: 'bench:webhooks' },
    );
    const target: Target = {
      merchant,
      endpoint: { id: endpoint.id, merchantId: merchant.id, url, secret: endpoint.secret },
      receiverKey,
    };
    return target;
  };
  /** One target per port, created in turn (the CLI runs one at a time). */
  const all = async (kind: string, kindPorts: number[], keyOf: (index: number) => string) => {
    const targets: Target[] = [];
    for (const [index, port] of kindPorts.entries()) {
      targets.push(await create(kind, port, keyOf(index), index));
    }
    return targets;
  };
  const none = () => Promise.resolve<Target[]>([]);
  return {
    live: await all('live', ports.live, (index) => `live-${index}`),
    hanging: runs('dead-hanging')
      ? await all('hanging', ports.hanging.slice(0, dead), (index) => `hanging-${index}`)
      : await none(),
    refused: runs('dead-refused')
      ? await all('refused', ports.closed.slice(0, dead), (index) => `refused-${index}`)
      : await none(),
    aged: runs('dead-aged')
      ? await all('aged', ports.hanging.slice(dead, 2 * dead), (index) => `hanging-${dead + index}`)
      : await none(),
  };
}

const DRAIN_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

/**
 * `rate` events a second for `seconds` to the live merchants, each delivered. At 1/s per merchant
 * it is the probe that the worker is up and delivering (it has no other sign of readiness); at the
 * phases' rate, the warm-up that leaves no cold start to the first phase (JIT, connection pools,
 * keep-alive sockets). Nothing of it is measured.
 */
export async function warmUp(
  db: Client,
  services: { worker: TrackedProcess; generator: Generator; receiver: Receiver },
  targets: Targets,
  load: { rate: number; seconds: number; inFlight: number },
): Promise<void> {
  await resetOutbox(db);
  const merchantIds = targets.live.map((target) => target.merchant.id);
  const liveIds = targets.live.map((target) => target.endpoint.id);
  const stats = await services.generator.run({
    startAt: timestamp(),
    seconds: load.seconds,
    buckets: [{ rate: load.rate, merchantIds }],
    maxInFlight: load.inFlight,
  });
  if (stats.failed) throw new Error(`Writing warm-up events failed: ${stats.errors.join('; ')}`);
  const deadline = timestamp() + DRAIN_TIMEOUT_MS;
  while ((await pendingDeliveries(db, liveIds)) > 0) {
    assertRunning(services.worker);
    if (timestamp() > deadline) {
      throw new Error(`The worker did not deliver in ${DRAIN_TIMEOUT_MS} ms; see its log.`);
    }
    await sleep(POLL_MS);
  }
  const { arrivals } = await services.receiver.collect();
  const events = stats.committed.reduce((sum, committed) => sum + committed, 0);
  if (arrivals.length !== events) {
    throw new Error(`Warm-up: ${arrivals.length} requests received for ${events} events.`);
  }
}
