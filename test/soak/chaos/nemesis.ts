import type { SeededRandom } from '../../support/seeded-random';
import type { Cluster } from './cluster';
import type { Load } from './load';
import { reorg, ReorgOutcome } from './reorg';

export const FAULT_KINDS = [
  'kill-worker',
  'kill-api',
  'restart-postgres',
  'stop-redis',
  'rpc-fail',
  'rpc-hang',
  'rpc-lag',
  'reorg',
  'tron-fail',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface InjectedFault {
  kind: FaultKind;
  target: string;
  startedAt: number;
  endedAt: number;
  /** Seconds until the service was whole again (the killed process up, the server back). */
  recoverySeconds: number;
  /** What the fault did beyond its target: a reorg's dropped and replayed transactions. */
  detail?: string;
  reorg?: ReorgOutcome;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds between one fault's planned start and the next's (the default: 20–60 s). */
export interface FaultGap {
  min: number;
  max: number;
}

/** `--fault-gap 5-10`: the least and most seconds between faults. */
export function parseFaultGap(text: string | undefined): FaultGap {
  if (text === undefined) return { min: 20, max: 60 };
  const match = /^(\d+)-(\d+)$/.exec(text);
  const gap = match ? { min: Number(match[1]), max: Number(match[2]) } : undefined;
  if (!gap || gap.min > gap.max) throw new Error(`--fault-gap: MIN-MAX seconds, not ${text}`);
  return gap;
}

/**
 * Every 20–60 s (seeded; `gap` sets other bounds), one fault, every kind once in a seeded order before any repeats (of
 * the kinds given, all by default): a worker or an API process SIGKILLed and started again, the
 * soak's own PostgreSQL restarted (down 3–10 s), its Redis stopped for 30 s (without
 * persistence: its queues are lost, as a crashed cache's would be), anvil's RPC behind the proxy
 * answering 503 for 20 s, hanging for 15 s, or lagging for 20 s (a balancer over a fresh node and
 * one 3–10 blocks behind, each answer from either), a reorg of anvil's last 2–5 blocks (see
 * reorg.ts), or the fake TRON node answering 503 for 20 s. One fault at a time: the next waits
 * until the last one's target is back. With `everyKind`, faults go on past `until` until each
 * kind given has struck once (a short run of a fixed list always sees every one of them), then
 * stop.
 */
export class Nemesis {
  readonly faults: InjectedFault[] = [];
  /** When PostgreSQL was down: 503 service_unavailable is expected in these windows only. */
  readonly postgresDown: Array<{ from: number; to: number }> = [];
  private running = true;
  private wake: (() => void) | undefined;
  private bag: FaultKind[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly load: Load,
    private readonly random: SeededRandom,
    private readonly log: (line: string) => void,
    private readonly kinds: readonly FaultKind[] = FAULT_KINDS,
    private readonly gap: FaultGap = { min: 20, max: 60 },
  ) {}

  /** Kinds given that have not struck yet. */
  get kindsNotYetStruck(): FaultKind[] {
    return this.kinds.filter((kind) => !this.faults.some((fault) => fault.kind === kind));
  }

  /** Faults until `until` (and, with `everyKind`, until each kind has struck) or stop(). */
  async run(until: number, everyKind = false): Promise<void> {
    const gapMs = () => this.random.int(this.gap.min, this.gap.max) * 1000;
    let nextAt = Date.now() + gapMs();
    while (this.running) {
      await this.sleepUntil(nextAt);
      if (!this.running) break;
      if (Date.now() >= until && !(everyKind && this.kindsNotYetStruck.length)) break;
      const kind = this.nextKind();
      const which = this.random.int(0, 1);
      nextAt += gapMs();
      await this.inject(kind, which);
    }
  }

  /** A seeded shuffle of every kind, then another: a short run still sees each fault once. */
  private nextKind(): FaultKind {
    if (!this.bag.length) {
      this.bag = [...this.kinds];
      for (let i = this.bag.length - 1; i > 0; i--) {
        const j = this.random.int(0, i);
        [this.bag[i], this.bag[j]] = [this.bag[j], this.bag[i]];
      }
    }
    return this.bag.pop()!;
  }

  stop(): void {
    this.running = false;
    this.wake?.();
  }

  private async sleepUntil(at: number): Promise<void> {
    const ms = at - Date.now();
    if (ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async inject(kind: FaultKind, which: number): Promise<void> {
    const { cluster } = this;
    const startedAt = Date.now();
    let target = '';
    let endedAt = startedAt;
    let detail: string | undefined;
    let reorged: ReorgOutcome | undefined;
    switch (kind) {
      case 'kill-worker':
      case 'kill-api': {
        const process = kind === 'kill-api' ? cluster.apis[which] : cluster.workers[which];
        target = process.name;
        this.log(`nemesis: SIGKILL ${target}`);
        await process.kill();
        endedAt = Date.now();
        await process.restart();
        break;
      }
      case 'restart-postgres': {
        target = `postgres:${cluster.postgres.port}`;
        const downMs = this.random.int(3, 10) * 1000;
        this.log(`nemesis: PostgreSQL stopped for ${downMs / 1000} s`);
        await cluster.postgres.pause();
        await sleep(downMs);
        await cluster.postgres.resume();
        endedAt = Date.now();
        break;
      }
      case 'stop-redis': {
        target = `redis:${cluster.redis.port}`;
        this.log('nemesis: Redis stopped for 30 s');
        await cluster.redis.pause();
        await sleep(30_000);
        await cluster.redis.resume();
        endedAt = Date.now();
        break;
      }
      case 'rpc-fail':
      case 'rpc-hang': {
        target = 'anvil rpc proxy';
        const ms = kind === 'rpc-fail' ? 20_000 : 15_000;
        this.log(
          `nemesis: RPC ${kind === 'rpc-fail' ? 'answers 503' : 'hangs'} for ${ms / 1000} s`,
        );
        await cluster.proxy.down(kind === 'rpc-fail' ? 'unavailable' : 'hang');
        await sleep(ms);
        await cluster.proxy.up();
        endedAt = Date.now();
        break;
      }
      case 'rpc-lag': {
        target = 'anvil rpc proxy';
        cluster.lagging.lagBlocks = this.random.int(3, 10);
        detail = `${cluster.lagging.lagBlocks} blocks behind, half the answers`;
        this.log(`nemesis: RPC lags for 20 s (${detail})`);
        cluster.proxy.retarget(cluster.lagging.url);
        await sleep(20_000);
        cluster.proxy.retarget(cluster.devnet.rpcUrl);
        endedAt = Date.now();
        break;
      }
      case 'reorg': {
        target = 'anvil';
        const depth = this.random.int(2, 5);
        const holdBlocks = this.random.int(3, 6);
        // Mining stands still between the snapshot and the head read: a block mined between the
        // two would be dropped by the revert and replayed by no one.
        const provider = cluster.devnet.provider;
        await provider.send('evm_setIntervalMining', [0]);
        let snapshot: { id: string; head: number };
        try {
          const head = await cluster.devnet.head();
          snapshot = { id: (await provider.send('evm_snapshot', [])) as string, head };
        } finally {
          await provider.send('evm_setIntervalMining', [1]);
        }
        this.log(`nemesis: reorg of the ${depth} blocks above ${snapshot.head}`);
        reorged = await reorg(cluster.devnet, this.load, this.random, snapshot, depth, holdBlocks);
        detail = JSON.stringify(reorged);
        endedAt = Date.now();
        break;
      }
      case 'tron-fail': {
        target = 'fake TRON node';
        this.log('nemesis: TRON node answers 503 for 20 s');
        await cluster.tron.down('unavailable');
        await sleep(20_000);
        await cluster.tron.up();
        endedAt = Date.now();
        break;
      }
    }
    if (kind === 'restart-postgres') this.postgresDown.push({ from: startedAt, to: endedAt });
    const fault: InjectedFault = {
      kind,
      target,
      startedAt,
      endedAt,
      recoverySeconds: Math.round((Date.now() - startedAt) / 100) / 10,
      ...(detail ? { detail } : {}),
      ...(reorged ? { reorg: reorged } : {}),
    };
    this.faults.push(fault);
    this.log(
      `nemesis: ${kind} ${target} over, whole again after ${fault.recoverySeconds} s${detail ? ` (${detail})` : ''}`,
    );
  }
}
