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
  exitOnConfigurationError(loadAppConfig);
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  const logger = new NestLogger('Worker');
  const config = app.get<AppConfig>(APP_CONFIG);

  let metricsServer: Server | undefined;
  if (config.operations.workerMetricsPort) {
    metricsServer = await startMetricsServer(
      app.get(MetricsService),
      config.operations.workerMetricsPort,
      (error) => logger.error({ err: error }, 'Metrics scrape failed'),
    );
    logger.log({ port: listeningPort(metricsServer) }, 'Worker metrics listening');
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
