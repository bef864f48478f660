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
