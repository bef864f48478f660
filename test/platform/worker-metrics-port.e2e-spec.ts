import { createServer, Server } from 'node:net';
import { buildApp } from '../support/built-apps';
import { httpGet, SpawnedApp, waitForHttp } from '../support/spawned-app';

/** A port held by another process's listener, on every interface as a second worker's would be. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

/**
 * A second worker on one host with the same settings wants the metrics port the first holds. It
 * must stop at once with a message naming WORKER_METRICS_PORT, before it takes any work: it used
 * to start its jobs and loops, log that, then crash on EADDRINUSE (docs/operations.md).
 */
describe('Worker metrics port already in use', () => {
  beforeAll(() => buildApp('worker'), 180_000);

  afterAll(() => SpawnedApp.killAll());

  it('refuses to start, naming the port and the variable, before anything started', async () => {
    const held = await holdPort();
    try {
      const worker = SpawnedApp.start('worker', {
        WORKER_METRICS_PORT: String(held.port),
        LOG_LEVEL: 'info',
      });
      const exit = await worker.exited;
      expect(exit).toEqual({ code: 1, signal: null });
      expect(worker.log).toContain(`WORKER_METRICS_PORT=${held.port} is already in use`);
      expect(worker.log).toContain('Set WORKER_METRICS_PORT to a free port, or to 0');
      // Nothing of the worker ran: not one line of its (JSON) log, no stack trace.
      expect(worker.log).not.toMatch(/"level":|\n\s+at /);
    } finally {
      await new Promise((resolve) => held.server.close(resolve));
    }
  });

  it('serves its metrics on that port once it is free', async () => {
    const { server, port } = await holdPort();
    await new Promise((resolve) => server.close(resolve));
    const worker = SpawnedApp.start('worker', { WORKER_METRICS_PORT: String(port) });
    await waitForHttp(worker, port, '/metrics');
    const metrics = await httpGet(port, '/metrics');
    expect(metrics.body).toContain('# TYPE payments_jobs_total counter');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
  });
});
