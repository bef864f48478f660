import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from '../../apps/worker/src/worker.module';

/** The whole worker (queues, webhooks, schedulers) in this process, on the environment's services. */
export async function startWorker(): Promise<INestApplicationContext> {
  // TEST_WORKER_LOGS=1 shows the worker's log lines (info and up) for a failing run.
  const app = await NestFactory.createApplicationContext(WorkerModule, {
    logger: process.env.TEST_WORKER_LOGS ? ['log', 'warn', 'error'] : false,
  });
  await app.init();
  return app;
}
