// First: tracing (when enabled) must start before the modules it instruments are loaded.
import './instrument';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import {
  APP_CONFIG,
  AppConfig,
  exitOnConfigurationError,
  loadAppConfig,
  onShutdownSignal,
  settlesBefore,
} from '@app/common';
import { listeningPort, MetricsService, startMetricsServer, stopMetricsServer } from '@app/metrics';
import { WorkerDrain } from './worker-drain';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const { workerMetricsPort } = exitOnConfigurationError(loadAppConfig).operations;
  // The metrics port is taken before the worker starts its jobs and loops: one another process
  // holds stops the worker here, with a message naming WORKER_METRICS_PORT and nothing started.
  const metrics = workerMetricsPort
    ? await startMetricsServer(workerMetricsPort).catch((error: unknown) =>
        exitOnConfigurationError(() => {
          throw error;
        }),
      )
    : undefined;
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  const logger = new NestLogger('Worker');
  const config = app.get<AppConfig>(APP_CONFIG);

  const metricsServer: Server | undefined = metrics?.server;
  if (metrics) {
    metrics.serve(app.get(MetricsService), (error) =>
      logger.error({ err: error }, 'Metrics scrape failed'),
    );
    logger.log({ port: listeningPort(metrics.server) }, 'Worker metrics listening');
  }

  // Work in flight first (jobs, webhook attempts, deposit ticks), with everything still open;
  // then Nest's hooks close chains, queues and, last, the database (docs/operations.md).
  onShutdownSignal(async () => {
    const deadline = Date.now() + config.operations.shutdownTimeoutMs;
    const drained = await settlesBefore(app.get(WorkerDrain).drain(), deadline);
    if (metricsServer) await stopMetricsServer(metricsServer);
    const closed = await settlesBefore(app.close(), deadline);
    return drained && closed;
  });
}

void bootstrap();
