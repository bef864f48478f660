import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { migrateDatabase } from '../../libs/database/src/migrate';
import { waitFor } from './wait-for';

/*
 * PostgreSQL and Redis of a suite's own, on free ports, for tests that stop and restart them
 * (the shared services must never be touched) and for processes that must not see other suites'
 * queues. Both are removed when the suite ends, and on process exit if it never gets that far.
 */

const START_TIMEOUT_MS = 30_000;

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error(`No PostgreSQL under ${root}`);
  return join(root, versions[0], 'bin', name);
}

/** initdb refuses to run as root: run the server as the postgres user then, in a folder it owns. */
function runAsServerUser(command: string, args: string[]): string[] {
  if (process.getuid?.() !== 0) return [command, ...args];
  return ['runuser', '-u', 'postgres', '--', command, ...args];
}

function serverUserIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const [uid, gid] = ['-u', '-g'].map((flag) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()),
  );
  return { uid, gid };
}

function run(argv: string[]): void {
  const [command, ...args] = argv;
  execFileSync(command, args, { stdio: 'pipe' });
}

export class PrivatePostgres {
  private readonly cleanUpOnExit = () => this.stopSync();
  private removed = false;

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    process.once('exit', this.cleanUpOnExit);
  }

  /** initdb (trust, no fsync: nothing here must survive a crash) and start; `payments` migrated. */
  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'private-pg-'));
    const ids = serverUserIds();
    if (ids) chownSync(dir, ids.uid, ids.gid);
    chmodSync(dir, 0o700);
    const data = join(dir, 'data');
    run(
      runAsServerUser(postgresBin('initdb'), [
        '-D',
        data,
        '-A',
        'trust',
        '-U',
        'postgres',
        '--no-sync',
      ]),
    );
    const postgres = new PrivatePostgres(dir, await freePort());
    await postgres.resume();
    const admin = new Client({ connectionString: postgres.urlOf('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE payments');
    await admin.end();
    await migrateDatabase(postgres.url);
    return postgres;
  }

  get url(): string {
    return this.urlOf('payments');
  }

  urlOf(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server again (same port, same data) and waits until it takes connections. */
  async resume(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    run(
      runAsServerUser(postgresBin('pg_ctl'), [
        '-D',
        join(this.dir, 'data'),
        '-o',
        options,
        '-l',
        join(this.dir, 'server.log'),
        '-w',
        '-t',
        String(START_TIMEOUT_MS / 1000),
        'start',
      ]),
    );
  }

  /** A fast shutdown: sessions are terminated (57P01), then connections are refused. */
  async pause(): Promise<void> {
    run(
      runAsServerUser(postgresBin('pg_ctl'), [
        '-D',
        join(this.dir, 'data'),
        '-m',
        'fast',
        '-w',
        'stop',
      ]),
    );
  }

  async remove(): Promise<void> {
    this.stopSync();
    process.removeListener('exit', this.cleanUpOnExit);
  }

  private stopSync(): void {
    if (this.removed) return;
    this.removed = true;
    const [command, ...args] = runAsServerUser(postgresBin('pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-m',
      'immediate',
      '-w',
      'stop',
    ]);
    spawnSync(command, args, { stdio: 'ignore' });
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class PrivateRedis {
  private child: ChildProcess | undefined;
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    process.once('exit', this.killOnExit);
  }

  /** redis-server without persistence: a restart loses every key, as a crashed cache would. */
  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(mkdtempSync(join(tmpdir(), 'private-redis-')), await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: this.dir, stdio: 'ignore' },
    );
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error('redis-server exited at start');
        return this.answers();
      },
      START_TIMEOUT_MS,
      'private redis-server to answer',
    );
  }

  private async answers(): Promise<boolean> {
    const client = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  }

  /** Stops the server (its data is gone) and waits for the process to exit. */
  async pause(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async remove(): Promise<void> {
    await this.pause();
    process.removeListener('exit', this.killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
