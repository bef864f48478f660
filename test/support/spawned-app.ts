import { ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { flags as API_NODE_FLAGS } from '../../apps/api/node-flags.json';
import { mainOf } from './built-apps';
import { waitFor } from './wait-for';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A compiled app (`node dist/.../main.js`; the API with its node flags, as production runs it) as
 * its own process, with its output kept for the failure message. Every one started is killed by
 * `killAll`, whatever happened in the test.
 */
export class SpawnedApp {
  private static readonly running = new Set<SpawnedApp>();
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly child: ChildProcess) {
    if (!SpawnedApp.running.size) process.once('exit', SpawnedApp.killOnExit);
    child.stdout?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        SpawnedApp.running.delete(this);
        resolve({ code, signal });
      }),
    );
  }

  static start(app: 'api' | 'worker', env: Record<string, string>): SpawnedApp {
    const nodeFlags = app === 'api' ? API_NODE_FLAGS : [];
    const child = spawn(process.execPath, [...nodeFlags, mainOf(app)], {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, LOG_LEVEL: process.env.TEST_SPAWNED_LOG_LEVEL ?? 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const spawned = new SpawnedApp(child);
    SpawnedApp.running.add(spawned);
    return spawned;
  }

  private static readonly killOnExit = () => {
    for (const app of SpawnedApp.running) app.child.kill('SIGKILL');
  };

  static async killAll(): Promise<void> {
    await Promise.all(
      [...SpawnedApp.running].map((app) => {
        app.child.kill('SIGKILL');
        return app.exited;
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get log(): string {
    return this.output.join('');
  }
}

/** One HTTP request on its own connection (no keep-alive pool in the way). */
export function httpGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a new TCP connection to the port is refused. */
export function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Waits until the app answers GET `path` with 200. */
export async function waitForHttp(app: SpawnedApp, port: number, path: string): Promise<void> {
  await waitFor(
    async () => {
      if (!app.running) throw new Error(`The process exited at start:\n${app.log}`);
      return httpGet(port, path).then(
        (answer) => answer.status === 200,
        () => false,
      );
    },
    60_000,
    `GET ${path} on port ${port}`,
  );
}
