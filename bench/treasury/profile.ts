import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Devnet } from '../../test/support/devnet';
import { RpcProxy } from '../../test/support/rpc-proxy';
import { timestamp } from '../kit/clock';
import { cli } from './cli';
import { CONFIRMATIONS } from './settings';

/*
 * One more treasury:reconcile after the timed runs, to see where its time goes (not counted in the
 * figures: the proxy and the profiler slow it): the CLI under node --cpu-prof, its RPC through a
 * proxy that counts requests, the calls in each Multicall3 batch and how many were in flight.
 */

export type ReconcileProfile = Awaited<ReturnType<typeof profileReconcile>>;

export async function profileReconcile(devnet: Devnet, cliEnv: NodeJS.ProcessEnv, base: string) {
  const proxy = await RpcProxy.start(devnet.rpcUrl);
  const started = new Map<unknown, number>();
  const answerMs: number[] = [];
  const callsPerBatch: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  proxy.intercept((request) => {
    if (request.method === 'eth_call') {
      started.set(request.id, timestamp());
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
    }
    return undefined;
  });
  proxy.rewrite((request) => {
    if (request.method === 'eth_call') {
      inFlight -= 1;
      answerMs.push(timestamp() - (started.get(request.id) ?? timestamp()));
      const data = String((request.params?.[0] as { data?: string } | undefined)?.data ?? '');
      // aggregate3's selector, the array's offset, then its length: the calls in the batch.
      if (data.length >= 138) callsPerBatch.push(Number(BigInt(`0x${data.slice(74, 138)}`)));
    }
    return undefined;
  });
  const networksFile = `${base}.profile-networks.json`;
  writeFileSync(
    networksFile,
    devnet.networksFileJson({ confirmations: CONFIRMATIONS, rpcUrls: [proxy.url] }),
  );
  const profileDir = `${base}.cpuprofile`;
  mkdirSync(profileDir, { recursive: true });
  try {
    const result = await cli(
      ['treasury:reconcile', '--network', 'ETHEREUM'],
      { ...cliEnv, NETWORKS_FILE: networksFile },
      ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    );
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    const cpu = file ? summarizeCpuProfile(join(profileDir, file)) : null;
    const rpcMethods: Record<string, number> = {};
    for (const method of proxy.methods) rpcMethods[method] = (rpcMethods[method] ?? 0) + 1;
    const sorted = [...answerMs].sort((a, b) => a - b);
    return {
      ms: result.ms,
      exitCode: result.status,
      /** Requests per JSON-RPC method. */
      rpcMethods,
      /** Per eth_call to Multicall3: calls in it, and the time the node took to answer it. */
      multicalls: {
        batches: callsPerBatch.length,
        callsPerBatch,
        answerMs: {
          p50: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
          max: Math.round(sorted[sorted.length - 1] ?? 0),
        },
      },
      /** The most eth_calls waiting for the node at once. */
      maxInFlight,
      /** Where the CPU profile is, and its busiest functions and modules (self time). */
      cpuProfile: file ? join(profileDir, file) : null,
      topFunctions: cpu?.functions ?? [],
      topModules: cpu?.modules ?? [],
      cpuTotalMs: cpu?.totalMs ?? 0,
    };
  } finally {
    await proxy.stop();
  }
}

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function and per module (a package, else a file of the build). */
function summarizeCpuProfile(path: string) {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = profile.timeDeltas[index] / 1000;
    totalMs += ms;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    const module = moduleOf(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${module}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    modules.set(module, (modules.get(module) ?? 0) + ms);
  });
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, ms]) => ({ name, ms: Math.round(ms) }));
  return { totalMs: Math.round(totalMs), functions: top(functions, 15), modules: top(modules, 10) };
}

function moduleOf(url: string): string {
  if (!url) return '(native)';
  const inPackage = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  return url.replace(/^file:\/\//, '').replace(/^.*\/dist\/apps\/[^/]+\//, '');
}
