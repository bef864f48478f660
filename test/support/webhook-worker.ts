import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfigModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { WebhookDeliveryModule } from '@app/events';

@Module({ imports: [AppConfigModule, DatabaseModule, WebhookDeliveryModule] })
class WebhookWorkerModule {}

/** The worker's webhook delivery, in process, on the test database (nothing else of the worker). */
export async function startWebhookWorker(): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WebhookWorkerModule, { logger: false });
  await app.init();
  return app;
}
