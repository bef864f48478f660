// First: tracing (when enabled) must start before the modules it instruments are loaded.
import './instrument';
import type { Server } from 'node:http';
import {
  APP_CONFIG,
  AppConfig,
  exitOnConfigurationError,
  loadAppConfig,
  onShutdownSignal,
  settlesBefore,
} from '@app/common';
import { createApiApp } from './create-api-app';
import { DrainState } from './health/drain-state';
import { HttpDrain } from './http-drain';

async function bootstrap(): Promise<void> {
  // Fail on a bad environment with a one-line reason before Nest starts anything.
  exitOnConfigurationError(loadAppConfig);
  const app = await createApiApp();
  const http = new HttpDrain();
  app.use(http.track);
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.port);
  const server = app.getHttpServer() as Server;
  // A balancer must close an idle connection before the API does (docs/operations.md), and the
  // headers of a request on it must not be timed out first.
  server.keepAliveTimeout = config.operations.httpKeepAliveTimeoutMs;
  server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1000);

  // The order matters (docs/operations.md): HTTP first, so requests in flight still have their
  // queues and database; then Nest's hooks close the Bull queues, Redis and the database last.
  onShutdownSignal(async () => {
    const deadline = Date.now() + config.operations.shutdownTimeoutMs;
    app.get(DrainState).draining = true;
    const drained = await http.drain(server, deadline);
    const closed = await settlesBefore(app.close(), deadline);
    const disconnected = await http.closed(server, deadline);
    return drained && closed && disconnected;
  });
}

void bootstrap();
