import { createMerchant, Merchant } from '../kit/database';
import { Api, callApi } from '../kit/services';
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
  // Every merchant first, then the endpoints: the CLI runs synchronously, for seconds on a busy
  // machine, and a kept-alive connection to the API idle that long was closed by the API; fetch
  // took it again before seeing that, and failed ("fetch failed", 3 of 5 runs at load 4-7).
  const planned = (kind: string, kindPorts: number[], firstKey = 0, keyKind = kind) =>
    kindPorts.map((port, index) => ({
      merchant: createMerchant(benchEnvironment(), `Bench webhooks ${kind} ${index}`),
      url: `http://127.0.0.1:${port}/webhooks/${kind}-${index}`,
      receiverKey: `${keyKind}-${firstKey + index}`,
    }));
  const runs = (kind: BenchOptions['phases'][number]) => options.phases.includes(kind);
  const plan = {
    live: planned('live', ports.live),
    hanging: runs('dead-hanging') ? planned('hanging', ports.hanging.slice(0, dead)) : [],
    refused: runs('dead-refused') ? planned('refused', ports.closed.slice(0, dead)) : [],
    aged: runs('dead-aged')
      ? planned('aged', ports.hanging.slice(dead, 2 * dead), dead, 'hanging')
      : [],
  };
  const targets: Targets = { live: [], hanging: [], refused: [], aged: [] };
  // One turn of the event loop: the closed connections are seen, and not taken again.
  await new Promise((resolve) => setImmediate(resolve));
  for (const kind of Object.keys(plan) as Array<keyof Targets>) {
    for (const { merchant, url, receiverKey } of plan[kind]) {
      // The secret is only in this answer.
      const { id, secret } = await callApi<{ id: string; secret: string }>(
        api,
        merchant.apiKey,
        'POST',
        '/v1/webhook-endpoints',
        { url, description: 'bench:webhooks' },
      );
      targets[kind].push({
        merchant,
        endpoint: { id, merchantId: merchant.id, url, secret },
        receiverKey,
      });
    }
  }
  return targets;
}
