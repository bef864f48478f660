import {
  appendFileSync,
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { buildApp, mainOf } from '../../support/built-apps';
import { Devnet, startDevnet } from '../../support/devnet';
import { FakeTronNode } from '../../support/fake-tron-node';
import { freePort, PrivatePostgres, PrivateRedis } from '../../support/private-services';
import { LaggingBalancer } from '../../support/lagging-balancer';
import { RpcProxy } from '../../support/rpc-proxy';
import { httpGet, SpawnedApp } from '../../support/spawned-app';
import { waitFor } from '../../support/wait-for';
import { devnetSweeper } from '../../support/sweep-env';
import { tronTestKey } from '../../support/tron-sweep-env';
import { soakEnvironment } from '../soak-environment';
import { WorkerProcess } from '../worker-process';
import { useChainEnvironment } from '../../support/chain-test-env';

// nest build's colour codes, cut from the error quoted in the report.
// eslint-disable-next-line no-control-regex
const ANSI_COLOURS = /\u001b\[[0-9;]*m/g;

/** One start of a service process: a restart is another one. */
export interface Incarnation {
  pid: number;
  startedAt: number;
  /** The inspector's WebSocket URL it printed ("Debugger listening on ws://..."), once printed. */
  inspectorUrl(): Promise<string | undefined>;
}

/** A process of the service the nemesis can kill, and whose memory is sampled. */
export interface ServiceProcess {
  name: string;
  /** Its stdout and stderr, every incarnation's appended, each start marked by a line. */
  logFile: string;
  pid(): number | undefined;
  /** The running incarnation, undefined while none runs. */
  incarnation(): Incarnation | undefined;
  restart(): Promise<void>;
  kill(): Promise<void>;
}

// Every service process listens for an inspector on a port of its own (0: the kernel's choice,
// printed on stderr) on the loopback only: the heap sampler (heap.ts) forces a GC and reads the
// live heap through it.
const INSPECT = '--inspect=127.0.0.1:0';
const INSPECTOR_URL = /Debugger listening on (ws:\/\/\S+)/;
const inspectOptions = () => [process.env.NODE_OPTIONS, INSPECT].filter(Boolean).join(' ');

/** The built API as production runs it, on its own port, restarted after a kill. */
class ApiProcess implements ServiceProcess {
  private app: SpawnedApp | undefined;
  constructor(
    readonly name: string,
    readonly port: number,
    readonly logFile: string,
  ) {}

  private current: Incarnation | undefined;

  pid = () => (this.app?.running ? this.app.child.pid : undefined);

  incarnation = () => (this.app?.running ? this.current : undefined);

  async restart(): Promise<void> {
    const app = SpawnedApp.start('api', {
      PORT: String(this.port),
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: inspectOptions(),
    });
    this.app = app;
    // SpawnedApp keeps the output in memory only: a copy goes to the results folder.
    appendFileSync(this.logFile, startLine(this.name, app.child.pid));
    const file = createWriteStream(this.logFile, { flags: 'a' });
    app.child.stdout?.on('data', (chunk: Buffer) => file.write(chunk));
    app.child.stderr?.on('data', (chunk: Buffer) => file.write(chunk));
    void app.exited.then(() => file.end());
    let url: string | undefined;
    this.current = {
      pid: app.child.pid ?? 0,
      startedAt: Date.now(),
      inspectorUrl: async () => (url ??= INSPECTOR_URL.exec(app.log)?.[1]),
    };
    // A boot on a loaded 2-core machine (other test runs beside) can take minutes.
    await waitFor(
      async () => {
        if (!app.running) throw new Error(`${this.name} exited at start:\n${app.log}`);
        return httpGet(this.port, '/health/live').then(
          (answer) => answer.status === 200,
          () => false,
        );
      },
      300_000,
      `${this.name} up on port ${this.port}`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.tail()}`);
    });
  }

  async kill(): Promise<void> {
    const app = this.app;
    if (!app?.running) return;
    app.child.kill('SIGKILL');
    await app.exited;
  }

  tail(): string {
    return (this.app?.log ?? '').split('\n').slice(-20).join('\n');
  }
}

/** The built worker (the existing soak's WorkerProcess), restarted after a kill. */
class WorkerService implements ServiceProcess {
  readonly process: WorkerProcess;
  private current: Incarnation | undefined;
  constructor(
    readonly name: string,
    readonly logFile: string,
  ) {
    this.process = new WorkerProcess(logFile);
  }

  // WorkerProcess keeps its child to itself: its pid is read for the memory samples only.
  pid = () => {
    const child = this.process['child'] as { pid?: number; exitCode: number | null } | undefined;
    return child && child.exitCode === null ? child.pid : undefined;
  };

  incarnation = () => (this.current?.pid === this.pid() ? this.current : undefined);

  async restart(): Promise<void> {
    // WorkerProcess spawns on this process's environment: NODE_OPTIONS is set for its spawn only
    // (synchronous), and the inspector's line is the first the new process writes to the log
    // after what is in it now.
    appendFileSync(this.logFile, startLine(this.name));
    const offset = statSync(this.logFile).size;
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = inspectOptions();
    try {
      this.process.start();
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
    }
    let url: string | undefined;
    this.current = {
      pid: this.pid() ?? 0,
      startedAt: Date.now(),
      inspectorUrl: async () => (url ??= INSPECTOR_URL.exec(readFrom(this.logFile, offset))?.[1]),
    };
    await this.process.ready(300_000);
  }

  kill = () => this.process.kill();
}

/** The line a process's log gets before each start (the worker's pid is known only after). */
const startLine = (name: string, pid?: number) =>
  `--- ${new Date().toISOString()} soak: ${name} started${pid ? ` (pid ${pid})` : ''} ---\n`;

/** Up to 16 kB of a file from `offset` ('' when there is nothing there yet). */
function readFrom(file: string, offset: number): string {
  const buffer = Buffer.alloc(16_384);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, offset));
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Everything the chaos soak runs: its own PostgreSQL cluster and redis-server (the machine's
 * shared ones are never stopped), anvil behind an RPC fault proxy, the fake TRON node, two built
 * API processes and two built workers on that environment.
 */
export class Cluster {
  readonly hot = Wallet.createRandom();
  readonly sweeper = devnetSweeper(17);
  readonly treasury = Wallet.createRandom().address;
  readonly stakingKey = tronTestKey('chaos soak staking account');
  readonly tronHotKey = tronTestKey('chaos soak tron hot wallet');
  postgres!: PrivatePostgres;
  redis!: PrivateRedis;
  devnet!: Devnet;
  proxy!: RpcProxy;
  /** The nemesis's lagging RPC: the proxy forwards to it while an rpc-lag fault lasts. */
  lagging!: LaggingBalancer;
  tron!: FakeTronNode;
  /** Seconds each step of the boot took, in order (the report's boot breakdown). */
  readonly boot: Record<string, number> = {};
  apis: ApiProcess[] = [];
  workers: WorkerService[] = [];
  firstBlock = 0;
  readonly buildWarnings: string[] = [];
  private miner: NodeJS.Timeout | undefined;
  private restoreEnvironment: (() => void) | undefined;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  get processes(): ServiceProcess[] {
    return [...this.apis, ...this.workers];
  }

  /** Runs a step of the boot and records how long it took. */
  async timed<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await work();
    } finally {
      this.boot[step] = Math.round((Date.now() - started) / 100) / 10;
    }
  }

  /**
   * Builds (when sources changed), starts the services and chains, sets the apps' variables.
   * The three steps wait on nothing of each other's and run side by side: the build (minutes
   * when a library changed) hides the cluster's and the chains' start.
   */
  async prepare(log: (line: string) => void): Promise<void> {
    const [, , setup] = await Promise.all([
      this.timed('nest build api + worker (only when sources changed)', () => this.build(log)).then(
        () => log('api and worker built'),
      ),
      this.timed('own PostgreSQL (initdb, start, migrations) and Redis', async () => {
        [this.postgres, this.redis] = await Promise.all([
          PrivatePostgres.start(),
          PrivateRedis.start(),
        ]);
      }).then(() =>
        log(`own PostgreSQL on ${this.postgres.port}, own Redis on ${this.redis.port}`),
      ),
      this.timed('anvil, contracts, fake TRON node, sweep delegate', () => this.chains()),
    ]);
    await this.configure(setup);
  }

  private async build(log: (line: string) => void): Promise<void> {
    for (const app of ['api', 'worker'] as const) {
      try {
        await buildApp(app);
      } catch (error) {
        // tsc emits despite type errors: in a checkout others are editing, a run goes on with the
        // emitted output and the report says so (the type errors are not the soak's to judge).
        if (!existsSync(mainOf(app))) throw error;
        const first = String((error as Error).message)
          .split('\n')
          .find((line) => line.includes('error'));
        this.buildWarnings.push(
          `${app}: nest build failed (${first?.replace(ANSI_COLOURS, '').trim()}); ran its emitted output`,
        );
        log(`WARNING ${this.buildWarnings[this.buildWarnings.length - 1]}`);
      }
    }
  }

  private async chains() {
    this.devnet = await startDevnet({ blockTime: 1 });
    this.firstBlock = await this.devnet.head();
    this.proxy = await RpcProxy.start(this.devnet.rpcUrl);
    this.lagging = await LaggingBalancer.start(this.devnet.rpcUrl, { mode: 'random', seed: 27 });
    this.tron = new FakeTronNode({ solidLag: 6 });
    const tronUrl = await this.tron.start();
    this.tron.mineEmpty(5);
    this.miner = setInterval(() => this.tron.mineBroadcasts(), 500);
    return soakEnvironment({
      devnet: this.devnet,
      tronUrl,
      hot: this.hot,
      sweeper: this.sweeper,
      treasury: this.treasury,
      tronHotKey: this.tronHotKey,
      stakingKey: this.stakingKey,
    });
  }

  /** The apps' variables: this cluster's database, Redis and chains. */
  private async configure(setup: Awaited<ReturnType<typeof soakEnvironment>>): Promise<void> {
    // The workers' and APIs' ETHEREUM RPC goes through the proxy (the nemesis's lag and failures);
    // the new-heads WebSocket and the soak's own payments reach anvil directly.
    const networks = JSON.parse(setup.networksFileJson);
    networks.networks.ETHEREUM.rpcUrls = [this.proxy.url];
    const environment = useChainEnvironment(JSON.stringify(networks, null, 2), {
      ...setup.variables,
      DATABASE_URL: this.postgres.url,
      REDIS_URL: this.redis.url,
      // Four processes on one server of max_connections 100.
      DATABASE_POOL_SIZE: '12',
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    });
    this.restoreEnvironment = () => environment.restore();
    this.apis = [
      new ApiProcess('api-1', await freePort(), join(this.dir, 'api-1.log')),
      new ApiProcess('api-2', await freePort(), join(this.dir, 'api-2.log')),
    ];
    this.workers = [1, 2].map(
      (n) => new WorkerService(`worker-${n}`, join(this.dir, `worker-${n}.log`)),
    );
  }

  async startServices(): Promise<void> {
    await Promise.all(this.processes.map((process) => process.restart()));
  }

  apiPorts(): number[] {
    return this.apis.map((api) => api.port);
  }

  workerLogTail(name: string): string {
    try {
      return readFileSync(join(this.dir, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-30)
        .join('\n');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (this.miner) clearInterval(this.miner);
    await Promise.allSettled(this.processes.map((process) => process.kill()));
    await SpawnedApp.killAll();
    await Promise.allSettled([
      this.proxy?.stop(),
      this.lagging?.stop(),
      this.devnet?.stop(),
      this.tron?.stop(),
      this.redis?.remove(),
      this.postgres?.remove(),
    ]);
    this.restoreEnvironment?.();
  }
}
