import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { MetricsService } from './metrics.service';

/**
 * The worker's own HTTP listener: GET /metrics (the same token rule as the API's) and
 * GET /health/live for a container health check. Nothing else; the worker serves no API.
 */
export async function startMetricsServer(
  metrics: MetricsService,
  port: number,
  onError: (error: unknown) => void,
): Promise<Server> {
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
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/** Stops listening and drops open connections (scrapes are cheap to repeat). */
export function stopMetricsServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
