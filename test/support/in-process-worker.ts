import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../../apps/worker/src/worker.module';

/** The whole worker (queues, webhooks, schedulers) in this process, on the environment's services. */
export async function startWorker(): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
  await app.init();
  return app;
}
