import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfigModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { WebhookDeliveryModule } from '@app/events';
import { WebhookDeliveryLoop } from '../../apps/worker/src/webhooks/webhook-delivery-loop';

// The worker's own starter: the library's dispatcher does not start by itself.
@Module({
  imports: [AppConfigModule, DatabaseModule, WebhookDeliveryModule],
  providers: [WebhookDeliveryLoop],
})
class WebhookWorkerModule {}

/** The worker's webhook delivery, in process, on the test database (nothing else of the worker). */
export async function startWebhookWorker(): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WebhookWorkerModule, { logger: false });
  await app.init();
  return app;
}
