import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { exitOnConfigurationError, loadAppConfig } from '@app/common';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  exitOnConfigurationError(loadAppConfig);
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
}

void bootstrap();
