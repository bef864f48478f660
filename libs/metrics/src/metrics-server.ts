import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ConfigurationError } from '@app/common';
import { MetricsService } from './metrics.service';

/**
 * The worker's own HTTP listener: GET /metrics (the same token rule as the API's) and
 * GET /health/live for a container health check. Nothing else; the worker serves no API.
 *
 * It listens before the worker takes any work and is given its metrics once the worker is up:
 * a port another process holds (a second worker on the same host with the same settings) stops
 * the worker at start with a message naming WORKER_METRICS_PORT, instead of crashing it after
 * its jobs and deposit loops had started. Until then /metrics answers 503 and /health/live 200.
 */
export interface WorkerMetricsServer {
  readonly server: Server;
  /** Serves these metrics from now on; scrape failures go to onError. */
  serve(metrics: MetricsService, onError: (error: unknown) => void): void;
}

export async function startMetricsServer(port: number): Promise<WorkerMetricsServer> {
  let source: { metrics: MetricsService; onError: (error: unknown) => void } | undefined;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/health/live') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok' }));
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    if (!source) {
      response.writeHead(503, { 'Retry-After': '5' }).end();
      return;
    }
    const { metrics, onError } = source;
    if (!metrics.allows(request.headers.authorization)) {
      response.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
      return;
    }
    metrics.render().then(
      (body) => {
        response.writeHead(200, { 'Content-Type': metrics.contentType });
        response.end(body);
      },
      (error: unknown) => {
        onError(error);
        response.writeHead(500).end();
      },
    );
  });
  // A scraper's keep-alive connection must not hold the worker's shutdown.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(port, error)));
    server.listen(port, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  return {
    server,
    serve: (metrics, onError) => {
      source = { metrics, onError };
    },
  };
}

/** What the operator can do about a port the listener cannot have. */
function listenError(port: number, error: NodeJS.ErrnoException): Error {
  const fix = 'Set WORKER_METRICS_PORT to a free port, or to 0 to run this worker without one.';
  if (error.code === 'EADDRINUSE') {
    return new ConfigurationError(
      `WORKER_METRICS_PORT=${port} is already in use on this host (another worker with the same ` +
        `settings?): the worker's metrics listener cannot start. ${fix}`,
    );
  }
  if (error.code === 'EACCES') {
    return new ConfigurationError(
      `WORKER_METRICS_PORT=${port} may not be used by this process (a privileged port?). ${fix}`,
    );
  }
  return error;
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/** Stops listening and drops open connections (scrapes are cheap to repeat). */
export function stopMetricsServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
