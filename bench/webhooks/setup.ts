import type { Client } from 'pg';
import { timestamp } from '../kit/clock';
import { createMerchant, Merchant } from '../kit/database';
import { pollUntil } from '../kit/poll';
import type { TrackedProcess } from '../kit/processes';
import { Api, callApi } from '../kit/services';
import { Generator, offer, Receiver } from './children';
import { pendingDeliveries, resetOutbox } from './database';
import type { BenchOptions } from './options';
import type { Ports } from './receiver';
import { benchEnvironment } from './settings';

/** A merchant, its one endpoint, and the receiver's name for that endpoint. */
export interface Target {
  merchant: Merchant;
  endpoint: { id: string; merchantId: string; url: string; secret: string };
  receiverKey: string;
}

export interface Targets {
  live: Target[];
  hanging: Target[];
  refused: Target[];
  /** Hanging too, with a backlog built up before the phase (dead-aged). */
  aged: Target[];
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
  /** One target per port, created in turn (the CLI runs one at a time). */
  const all = async (kind: string, kindPorts: number[], firstKey = 0, keyKind = kind) => {
    const targets: Target[] = [];
    for (const [index, port] of kindPorts.entries()) {
      const merchant = createMerchant(benchEnvironment(), `Bench webhooks ${kind} ${index}`);
      const url = `http://127.0.0.1:${port}/webhooks/${kind}-${index}`;
      // The secret is only in this answer.
      const { id, secret } = await callApi<{ id: string; secret: string }>(
        api,
        merchant.apiKey,
        'POST',
        '/v1/webhook-endpoints',
        { url, description: 'bench:webhooks' },
      );
      const endpoint = { id, merchantId: merchant.id, url, secret };
      targets.push({ merchant, endpoint, receiverKey: `${keyKind}-${firstKey + index}` });
    }
    return targets;
  };
  const runs = (kind: BenchOptions['phases'][number]) => options.phases.includes(kind);
  return {
    live: await all('live', ports.live),
    hanging: runs('dead-hanging') ? await all('hanging', ports.hanging.slice(0, dead)) : [],
    refused: runs('dead-refused') ? await all('refused', ports.closed.slice(0, dead)) : [],
    aged: runs('dead-aged')
      ? await all('aged', ports.hanging.slice(dead, 2 * dead), dead, 'hanging')
      : [],
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
  const stats = await offer(services.generator, {
    startAt: timestamp(),
    seconds: load.seconds,
    buckets: [{ rate: load.rate, merchantIds }],
    maxInFlight: load.inFlight,
  });
  if (stats.failed) throw new Error(`Writing warm-up events failed: ${stats.errors.join('; ')}`);
  const delivered = () => pendingDeliveries(db, liveIds).then((pending) => pending === 0);
  const options = { timeoutMs: DRAIN_TIMEOUT_MS, pollMs: POLL_MS, child: services.worker };
  if (!(await pollUntil(delivered, options))) {
    throw new Error(`The worker did not deliver in ${DRAIN_TIMEOUT_MS} ms; see its log.`);
  }
  const { arrivals } = await services.receiver.ask('collect');
  const events = stats.committed.reduce((sum, committed) => sum + committed, 0);
  if (arrivals.length !== events) {
    throw new Error(`Warm-up: ${arrivals.length} requests received for ${events} events.`);
  }
}
